import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, waitFor } from 'xstate'
import type { PersonnelRegisterPayloadInput, RegistrationDetails } from '#domain/personnel.ts'
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
import {
  selectIsLoading,
  selectIsPhoneVerified,
  selectPhoneVerificationRef,
  selectRegistrationFlags,
} from '#machines/personnel/register-personnel.selectors.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import { fixtureDetails, fixtures } from '#tests/flows/register-personnel/model.ts'
import { controlled } from '#tests/support/deferred.ts'

// The fixtures of the flow model (tests/flows/register-personnel/model.ts).
const invitation: InvitationPreview = fixtures.invitation
const { invitationId } = fixtures.input

/** The form as sent, with a last name changed from the invitation's. */
const details: RegistrationDetails = { ...fixtureDetails, lastName: 'Lee-Smith' }

const target = { email: invitation.email, phone: fixtures.phone, countryCode: '+1' as const }

function start() {
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
    { input: { invitationId } },
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

type Setup = ReturnType<typeof start>

function flags({ actor }: Setup) {
  const snapshot = actor.getSnapshot()
  return selectRegistrationFlags(snapshot, selectPhoneVerificationRef(snapshot)?.getSnapshot())
}

function phone({ actor }: Setup) {
  const ref = selectPhoneVerificationRef(actor.getSnapshot())
  if (!ref) throw new Error('no phone verification running')
  return ref
}

async function loaded(setup: Setup) {
  setup.loadInvitation.latest().answer.resolve(invitation)
  await waitFor(setup.actor, (s) => s.matches('editing'))
}

async function verified(setup: Setup) {
  await loaded(setup)
  phone(setup).send({ type: 'fields.change', valid: true, target })
  phone(setup).send({ type: 'code.send' })
  setup.sendCode.latest().answer.resolve({ authyId: 'authy-1' })
  await waitFor(phone(setup), (s) => s.matches('codeSent'))
  phone(setup).send({ type: 'code.change', code: '123456' })
  phone(setup).send({ type: 'code.verify' })
  setup.verifyCode.latest().answer.resolve({ verified: true })
  await waitFor(setup.actor, (s) => s.matches({ editing: 'phoneVerified' }))
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date(2026, 5, 1, 12, 0, 0), shouldAdvanceTime: true })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('personnel registration', () => {
  it('loads the invitation named by the link', async () => {
    const setup = start()
    expect(setup.actor.getSnapshot().value).toBe('loading')
    expect(selectIsLoading(setup.actor.getSnapshot())).toBe(true)
    expect(setup.loadInvitation.calls.map((c) => c.input)).toEqual([{ invitationId }])
    await loaded(setup)
    const snapshot = setup.actor.getSnapshot()
    expect(snapshot.value).toEqual({ editing: 'verifyingPhone' })
    expect(snapshot.context.invitation).toEqual(invitation)
    expect(selectIsLoading(snapshot)).toBe(false)
  })

  it('goes to notFound through onInvitationMissing when the invitation cannot be loaded', async () => {
    const setup = start()
    const error = new Error('This invitation link is not valid any more.')
    setup.loadInvitation.latest().answer.reject(error)
    await waitFor(setup.actor, (s) => s.status === 'done')
    expect(setup.actor.getSnapshot().value).toBe('notFound')
    expect(setup.onInvitationMissing).toHaveBeenCalledWith({ error })
    expect(setup.onRegistered).not.toHaveBeenCalled()
  })

  it('starts with Get Code, Verify Code, the code input and Submit disabled', async () => {
    const setup = start()
    await loaded(setup)
    expect(flags(setup)).toEqual({
      disableGetCodeButton: true,
      disableSendCodeButton: true,
      disablePhoneCodeInput: true,
      disableSignUpButton: true,
      lockPhoneInput: false,
      busy: null,
    })
  })

  it('enables Get Code for valid fields, then the code input, then Verify Code', async () => {
    const setup = start()
    await loaded(setup)
    phone(setup).send({ type: 'fields.change', valid: true, target })
    expect(flags(setup).disableGetCodeButton).toBe(false)
    phone(setup).send({ type: 'code.send' })
    expect(flags(setup)).toMatchObject({ busy: 'sending', lockPhoneInput: true })
    expect(setup.sendCode.calls.map((c) => c.input)).toEqual([target])
    setup.sendCode.latest().answer.resolve({ authyId: 'authy-1' })
    await waitFor(phone(setup), (s) => s.matches('codeSent'))
    expect(flags(setup)).toMatchObject({
      disableGetCodeButton: true,
      disablePhoneCodeInput: false,
      disableSendCodeButton: true,
      disableSignUpButton: true,
    })
    phone(setup).send({ type: 'code.change', code: '123456' })
    expect(flags(setup).disableSendCodeButton).toBe(false)
    phone(setup).send({ type: 'code.verify' })
    expect(flags(setup).busy).toBe('verifying')
  })

  it('ignores Submit until the phone is verified', async () => {
    const setup = start()
    await loaded(setup)
    setup.actor.send({ type: 'form.submit', details })
    expect(setup.actor.getSnapshot().value).toEqual({ editing: 'verifyingPhone' })
    expect(setup.registerPersonnel.calls).toHaveLength(0)
  })

  it('after verification locks the phone and its buttons and enables Submit', async () => {
    const setup = start()
    await verified(setup)
    const snapshot = setup.actor.getSnapshot()
    expect(snapshot.context.verifiedPhone).toEqual({ authyId: 'authy-1', phone: '5551234567' })
    expect(selectIsPhoneVerified(snapshot)).toBe(true)
    expect(selectPhoneVerificationRef(snapshot)).toBeUndefined()
    expect(flags(setup)).toEqual({
      disableGetCodeButton: true,
      disableSendCodeButton: true,
      disablePhoneCodeInput: true,
      disableSignUpButton: false,
      lockPhoneInput: true,
      busy: null,
    })
  })

  it("submits the personnel model with the invitation's e-mail and position, then registers", async () => {
    const setup = start()
    await verified(setup)
    setup.actor.send({ type: 'form.submit', details: { ...details, phoneNumber: '5550000000' } })
    expect(setup.actor.getSnapshot().value).toBe('submitting')
    expect(flags(setup)).toMatchObject({ disableSignUpButton: true, busy: 'submitting' })
    expect(setup.registerPersonnel.latest().input).toEqual({
      id: invitationId,
      title: 'Dr.',
      first_name: 'Jordan',
      last_name: 'Lee-Smith',
      email: 'jordan.lee@example.com',
      position: 'Provider',
      // The verified phone, not whatever the input held.
      cell_phone: '5551234567',
      country_code: '+1',
      password: 'Secret123',
      password_confirm: 'Secret123',
      authyId: 'authy-1',
      username: 'jordan.lee@example.com',
    })
    const user = { id: 9, email: 'jordan.lee@example.com' }
    setup.registerPersonnel.latest().answer.resolve({ user })
    await waitFor(setup.actor, (s) => s.status === 'done')
    expect(setup.actor.getSnapshot().value).toBe('registered')
    expect(setup.onRegistered).toHaveBeenCalledWith({ user })
  })

  it("returns to the form with the server's message when Submit fails, and may try again", async () => {
    const setup = start()
    await verified(setup)
    setup.actor.send({ type: 'form.submit', details })
    setup.registerPersonnel
      .latest()
      .answer.reject(new Error('A person with this e-mail already has an account.'))
    await waitFor(setup.actor, (s) => s.matches('editing'))
    const snapshot = setup.actor.getSnapshot()
    expect(snapshot.value).toEqual({ editing: 'phoneVerified' })
    expect(snapshot.context.error).toBe('A person with this e-mail already has an account.')
    expect(flags(setup).disableSignUpButton).toBe(false)
    setup.actor.send({ type: 'form.submit', details })
    expect(setup.actor.getSnapshot().context.error).toBeNull()
    expect(setup.registerPersonnel.calls).toHaveLength(2)
  })

  it('says the spec\'s "Ooops" text for a failure without a message', async () => {
    const setup = start()
    await verified(setup)
    setup.actor.send({ type: 'form.submit', details })
    setup.registerPersonnel.latest().answer.reject({ status: 500 })
    await waitFor(setup.actor, (s) => s.matches('editing'))
    expect(setup.actor.getSnapshot().context.error).toBe(
      'Ooops, something going wrong please try again',
    )
  })

  it('fails loudly when the app forgets to provide the calls', async () => {
    const onInvitationMissing = vi.fn()
    const actor = createActor(
      registerPersonnelMachine.provide({
        actions: { onInvitationMissing: (_, params) => onInvitationMissing(params) },
      }),
      { input: { invitationId: 'x' } },
    ).start()
    await waitFor(actor, (s) => s.status === 'done')
    expect(onInvitationMissing.mock.calls[0]?.[0].error.message).toBe(
      'loadInvitation: not provided',
    )
  })
})
