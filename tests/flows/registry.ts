/**
 * Every flow and every model, in the order of the documents. A flow is registered here once; the
 * coverage test (`coverage.test.ts`) fails when a machine in `machines/` has no model below or a
 * state node or transition is not reached, `npm run paths` writes the documents of these flows,
 * and the browser replay runs those marked `browser`.
 */
import type { FlowSpec, Model } from '#tests/mbt/index.ts'
import { checkoutFlow } from './checkout/model.ts'
import { membershipFlow } from './membership/model.ts'
import { patientImportFlow } from './patient-import/model.ts'
import { personnelInvitationsFlow } from './personnel-invitations/model.ts'
import { registerPersonnelFlow } from './register-personnel/model.ts'
import { signInScreenFlow } from './sign-in-screen/model.ts'
import { signUpFlow } from './sign-up/model.ts'
import { walletSignInFlow } from './wallet-sign-in/model.ts'

/** The flows, one path file each. */
export const FLOWS: readonly FlowSpec[] = [
  signInScreenFlow,
  signUpFlow,
  registerPersonnelFlow,
  personnelInvitationsFlow,
  checkoutFlow,
  patientImportFlow,
  membershipFlow,
  walletSignInFlow,
]

/** Every model the flows walk (a child flow's model once), in the order they first appear. */
export const MODELS: readonly Model[] = [
  ...new Set(FLOWS.flatMap((flow) => flow.sections.map((section) => section.model))),
]
