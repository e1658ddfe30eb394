import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, waitFor } from 'xstate'
import type { RegistrationDetails } from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import { registerPersonnelMachine } from '#machines/personnel/register-personnel.machine.ts'
import {
  selectIsLoading,
  selectIsPhoneVerified,
  selectPhoneVerificationRef,
  selectRegistrationFlags,
} from '#machines/personnel/register-personnel.selectors.ts'
import {
  type RegisterPersonnelFakes,
  startRegisterPersonnel,
} from '#tests/flows/register-personnel/fakes.ts'
import { fixtureDetails, fixtures } from '#tests/flows/register-personnel/model.ts'

// The fixtures of the flow model (tests/flows/register-personnel/model.ts).
const invitation: InvitationPreview = fixtures.invitation
const { invitationId } = fixtures.input

/** The form as sent, with a last name changed from the invitation's. */
const details: RegistrationDetails = { ...fixtureDetails, lastName: 'Lee-Smith' }

const target = { email: invitation.email, phone: fixtures.phone, countryCode: '+1' as const }

type Setup = RegisterPersonnelFakes

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
    const setup = startRegisterPersonnel()
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
    const setup = startRegisterPersonnel()
    const error = new Error('This invitation link is not valid any more.')
    setup.loadInvitation.latest().answer.reject(error)
    await waitFor(setup.actor, (s) => s.status === 'done')
    expect(setup.actor.getSnapshot().value).toBe('notFound')
    expect(setup.onInvitationMissing).toHaveBeenCalledWith({ error })
    expect(setup.onRegistered).not.toHaveBeenCalled()
  })

  it('starts with Get Code, Verify Code, the code input and Submit disabled', async () => {
    const setup = startRegisterPersonnel()
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
    const setup = startRegisterPersonnel()
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
    const setup = startRegisterPersonnel()
    await loaded(setup)
    setup.actor.send({ type: 'form.submit', details })
    expect(setup.actor.getSnapshot().value).toEqual({ editing: 'verifyingPhone' })
    expect(setup.registerPersonnel.calls).toHaveLength(0)
  })

  it('after verification locks the phone and its buttons and enables Submit', async () => {
    const setup = startRegisterPersonnel()
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
    const setup = startRegisterPersonnel()
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
    const setup = startRegisterPersonnel()
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
    const setup = startRegisterPersonnel()
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
