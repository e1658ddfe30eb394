import { List, Stack, Text, Title } from '@mantine/core'
import { Clause } from '#src/features/sign-up/documents/clause.tsx'

/** The date the Terms and Conditions took effect. */
export const TERMS_EFFECTIVE_DATE = 'January 1, 2019'

/**
 * The Terms and Conditions of the Glow Rewards subscription, shown in full from the billing step.
 * Loaded on demand: most visitors never open it, so it stays out of the wizard's first chunk.
 */
export default function TermsText() {
  return (
    <Stack gap="sm">
      <Text fw={600}>Effective {TERMS_EFFECTIVE_DATE}</Text>
      <Text>
        These Terms and Conditions (the "Terms") govern the practice's subscription to Glow Rewards,
        the portal a medical or aesthetic practice uses to run a rewards and membership programme
        for its clients (the "Service"). By ticking "I agree to the Terms and Conditions" and
        completing sign-up, the person signing up accepts these Terms on behalf of the practice and
        confirms that they are authorised to do so.
      </Text>

      <Clause title="1. Accounts">
        The first user of a practice is its administrator. The practice is responsible for the
        accuracy of the information it gives, for every person it invites, and for keeping passwords
        and verification codes confidential. Tell us at once of any unauthorised use of an account.
      </Clause>

      <Title order={3} size="h5">
        2. Subscription, fees and payment
      </Title>
      <List spacing={4}>
        <List.Item>
          The subscription is billed in advance for the chosen term (monthly or yearly) at the
          prices shown at sign-up, in US dollars, plus any applicable taxes.
        </List.Item>
        <List.Item>
          The subscription renews automatically for the same term unless cancelled before the end of
          the current term. Cancellation takes effect at the end of the term already paid.
        </List.Item>
        <List.Item>
          A promotional code applies only as stated when it was issued and cannot be exchanged for
          cash.
        </List.Item>
        <List.Item>
          Fees already paid are not refundable, except where the law requires otherwise. We may
          change prices with at least 30 days' notice before the next renewal.
        </List.Item>
      </List>

      <Clause title="3. Use of the Service">
        The practice uses the Service only for its own rewards and membership programme and in line
        with the law, including laws on marketing messages and consent. The practice does not
        attempt to access other practices' data, interfere with the Service, or resell it.
      </Clause>

      <Title order={3} size="h5" id="privacy">
        4. Client data and privacy
      </Title>
      <Text>
        The practice owns the data it enters about its clients. We process it only to provide the
        Service and as the Business Associates Agreement describes. Where client data is protected
        health information, the Business Associates Agreement applies and prevails over these Terms.
      </Text>

      <Clause title="5. Integrations">
        An electronic health record integration (such as Nextech) requires the EHR plan and valid
        credentials from the practice. We are not responsible for the availability of third-party
        systems.
      </Clause>

      <Clause title="6. Availability and support">
        We aim to keep the Service available at all times, but maintenance and events outside our
        control may interrupt it. Support is offered through the support centre during business
        hours.
      </Clause>

      <Clause title="7. Liability">
        The Service is provided "as is". To the extent the law allows, our total liability for any
        claim is limited to the fees the practice paid in the twelve months before the claim, and
        neither party is liable for indirect or consequential loss.
      </Clause>

      <Clause title="8. Termination">
        Either party may end the subscription at the end of a term. We may suspend an account that
        is unpaid or that breaches these Terms after notice and a reasonable chance to remedy. On
        termination the practice may export its data for 30 days.
      </Clause>

      <Clause title="9. Changes and governing law">
        We may update these Terms with 30 days' notice by e-mail to the practice administrator.
        These Terms are governed by the laws of the State of Delaware, United States.
      </Clause>
    </Stack>
  )
}
