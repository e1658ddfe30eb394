import { fromPromise } from 'xstate'
import type {
  InvitePersonnelInput,
  PersonnelInvitation,
  PersonnelRegisterPayloadInput,
} from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import type {
  GetCodeAnswer,
  GetCodeInput,
  VerifyCodeAnswer,
  VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import type { InvitationRef } from '#machines/personnel/personnel-invitations.machine.ts'
import type { RegisteredPersonnel } from '#machines/personnel/register-personnel.machine.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  getInvitation,
  invitePersonnel,
  registerPersonnel,
  resendInvitation,
  revokeInvitation,
} from '#src/api/personnel.ts'
import { getCode, verifyCode } from '#src/api/sign-up.ts'
import { withCaptchaToken } from '#src/lib/get-code-captcha.ts'
import { withUserMessage } from '#src/lib/http.ts'

/** The real effects of the registration machine: the personnel and phone calls of the API. */
export const registerPersonnelActors = {
  loadInvitation: fromPromise<InvitationPreview, { invitationId: string }>(({ input }) =>
    getInvitation(input.invitationId),
  ),
  registerPersonnel: fromPromise<RegisteredPersonnel, PersonnelRegisterPayloadInput>(({ input }) =>
    withUserMessage(() => registerPersonnel(input)),
  ),
  phoneVerification: phoneVerificationMachine.provide({
    actors: {
      sendCode: fromPromise<GetCodeAnswer, GetCodeInput>(({ input }) =>
        withUserMessage(() => getCode(withCaptchaToken(input))),
      ),
      verifyCode: fromPromise<VerifyCodeAnswer, VerifyCodeInput>(({ input }) =>
        withUserMessage(() => verifyCode(input)),
      ),
    },
  }),
}

/** The real effects of the Personnel area's actions. */
export const personnelInvitationsActors = {
  invitePersonnel: fromPromise<PersonnelInvitation, InvitePersonnelInput>(({ input }) =>
    withUserMessage(() => invitePersonnel(input)),
  ),
  resendInvitation: fromPromise<unknown, InvitationRef>(({ input }) =>
    withUserMessage(() => resendInvitation(input.id)),
  ),
  revokeInvitation: fromPromise<unknown, InvitationRef>(({ input }) =>
    withUserMessage(() => revokeInvitation(input.id)),
  ),
}
