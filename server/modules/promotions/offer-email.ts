/**
 * The e-mail of an offer sent to patients (docs/decisions/018-email-templates.md). A send queues
 * it for thousands of patients in one statement, each row naming this template and holding these
 * props; the outbound worker renders each once, in the patient e-mail layout.
 */
import { mailTemplate } from '#server/messaging/templates.ts'
import {
  offerContent,
  type PatientMailProps,
  renderPatientMail,
} from '#server/modules/patient-mail/index.ts'

/** The props of an offer e-mail: the practice and offer shared by a send, the patient's own values. */
export type OfferEmailProps = PatientMailProps & {
  /** The offer; `value` its value in words ("$50.00 off HydraFacial"), or null. */
  offer: { title: string; description: string; value: string | null }
  /** The patient's first name, as typed by staff. */
  firstName: string
  /** The random token of the patient's personal link (`promotion_sends.token`). */
  token: string
}

/** The link to claim the offer: the patient's own page of it. */
export function offerLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/offers/${encodeURIComponent(token)}`
}

export const offerEmail = mailTemplate<OfferEmailProps>('offer', (props) =>
  renderPatientMail(
    props,
    offerContent(
      props.practice,
      { first_name: props.firstName },
      { ...props.offer, link: offerLink(props.publicUrl, props.token) },
    ),
  ),
)
