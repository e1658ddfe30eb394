import { List, Stack, Text, Title } from '@mantine/core'
import { Clause } from '#src/features/sign-up/documents/clause.tsx'

/** Business days the breaching party has to cure a material breach. */
export const BAA_CURE_PERIOD_BUSINESS_DAYS = 5
/** Years of disclosures an accounting covers. */
export const BAA_ACCOUNTING_WINDOW_YEARS = 6

/**
 * The Business Associates Agreement (HIPAA) between the practice and Glow Rewards, shown in full
 * from the billing step. Loaded on demand, like the Terms and Conditions.
 */
export default function AgreementText() {
  return (
    <Stack gap="sm">
      <Text>
        This Business Associates Agreement (the "Agreement") is made between the practice signing up
        (the "Covered Entity") and Glow Rewards (the "Business Associate") under the Health
        Insurance Portability and Accountability Act of 1996 and its regulations, as amended by the
        HITECH Act ("HIPAA"). It applies to all protected health information ("PHI") the Business
        Associate creates, receives, keeps or sends for the Covered Entity through the Service.
      </Text>

      <Clause title="1. Permitted uses and disclosures">
        The Business Associate uses and discloses PHI only to provide the Service under the Terms
        and Conditions, as this Agreement permits, or as required by law, and never in a way that
        would breach HIPAA if done by the Covered Entity. It uses, discloses and requests only the
        minimum PHI necessary.
      </Clause>

      <Clause title="2. Safeguards">
        The Business Associate keeps administrative, physical and technical safeguards that
        reasonably and appropriately protect the confidentiality, integrity and availability of
        electronic PHI, as the HIPAA Security Rule requires.
      </Clause>

      <Clause title="3. Reporting">
        The Business Associate reports to the Covered Entity any use or disclosure of PHI not
        permitted by this Agreement, any security incident, and any breach of unsecured PHI without
        unreasonable delay and no later than 60 days after discovery, with the information the
        Covered Entity needs to notify the individuals affected.
      </Clause>

      <Clause title="4. Subcontractors">
        The Business Associate ensures that any subcontractor that handles PHI on its behalf agrees
        in writing to the same restrictions and conditions that apply to it under this Agreement.
      </Clause>

      <Title order={3} size="h5">
        5. Rights of individuals
      </Title>
      <List spacing={4}>
        <List.Item>
          Within 15 days of a request, the Business Associate makes PHI available to the Covered
          Entity so it can answer an individual's request for access or amendment.
        </List.Item>
        <List.Item>
          The Business Associate records disclosures of PHI and gives the Covered Entity the
          information it needs to provide an accounting of disclosures covering the{' '}
          {BAA_ACCOUNTING_WINDOW_YEARS} years before the request.
        </List.Item>
        <List.Item>
          The Business Associate makes its practices, books and records about PHI available to the
          Secretary of Health and Human Services to determine compliance with HIPAA.
        </List.Item>
      </List>

      <Clause title="6. Term and termination">
        This Agreement lasts as long as the practice's subscription. If either party materially
        breaches it, the other party may give written notice; if the breach is not cured within{' '}
        {BAA_CURE_PERIOD_BUSINESS_DAYS} business days of that notice, the other party may end this
        Agreement and the subscription.
      </Clause>

      <Clause title="7. Return or destruction of PHI">
        When this Agreement ends, the Business Associate returns or destroys all PHI it still holds
        for the Covered Entity. Where that is not feasible, the protections of this Agreement
        continue for as long as the PHI is kept, and further uses are limited to the purposes that
        make return or destruction infeasible.
      </Clause>

      <Clause title="8. Miscellaneous">
        Any ambiguity is resolved in favour of a meaning that complies with HIPAA. This Agreement
        prevails over the Terms and Conditions for PHI. It is signed electronically by the person
        named below on behalf of the Covered Entity.
      </Clause>
    </Stack>
  )
}
