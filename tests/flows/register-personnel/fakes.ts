import { vi } from 'vitest'
import { createActor, type SimulatedClock } from 'xstate'
import type { PersonnelRegisterPayloadInput } from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import type {
  GetCodeAnswer,
  GetCodeInput,
  VerifyCodeAnswer,
  VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import {
  type RegisteredPersonnel,
  registerPersonnelMachine,
} from '#machines/personnel/register-personnel.machine.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import { controlled } from '#tests/support/deferred.ts'
import { fixtures } from './model.ts'

/**
 * Starts the real registration machine on the model's invitation, with every call a fake the test
 * answers and spies for the two callbacks. The machine's own tests and the view's replay share it;
 * `clock` (when given) drives the machine's delays.
 */
export function startRegisterPersonnel({ clock }: { clock?: SimulatedClock } = {}) {
  const loadInvitation = controlled<InvitationPreview, { invitationId: string }>()
  const registerPersonnel = controlled<RegisteredPersonnel, PersonnelRegisterPayloadInput>()
  const sendCode = controlled<GetCodeAnswer, GetCodeInput>()
  const verifyCode = controlled<VerifyCodeAnswer, VerifyCodeInput>()
  const onInvitationMissing = vi.fn()
  const onRegistered = vi.fn()
  const actor = createActor(
    registerPersonnelMachine.provide({
      actors: {
        loadInvitation: loadInvitation.logic,
        registerPersonnel: registerPersonnel.logic,
        phoneVerification: phoneVerificationMachine.provide({
          actors: { sendCode: sendCode.logic, verifyCode: verifyCode.logic },
        }),
      },
      actions: {
        onInvitationMissing: (_, params) => onInvitationMissing(params),
        onRegistered: (_, params) => onRegistered(params),
      },
    }),
    clock ? { input: fixtures.input, clock } : { input: fixtures.input },
  ).start()
  return {
    actor,
    loadInvitation,
    registerPersonnel,
    sendCode,
    verifyCode,
    onInvitationMissing,
    onRegistered,
  }
}

/** The fake calls and spies of {@link startRegisterPersonnel}, with its actor. */
export type RegisterPersonnelFakes = ReturnType<typeof startRegisterPersonnel>
