import { act, screen, waitFor } from '@testing-library/react'
import userEvent, { type UserEvent } from '@testing-library/user-event'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { type AnyMachineSnapshot, SimulatedClock } from 'xstate'
import { selectPhoneVerificationRef } from '#machines/personnel/register-personnel.selectors.ts'
import { RESEND_COOLDOWN_MS } from '#machines/phone-verification/phone-verification.machine.ts'
import { RegisterPersonnelView } from '#src/features/personnel/register-personnel-view.tsx'
import {
  type PhoneModelEvent,
  phoneEvents,
  phoneFixtures,
  RESEND_EVENT,
} from '#tests/flows/phone-verification/model.ts'
import {
  expectEveryStateAndEvent,
  replayThroughView,
  type ScreenChecks,
} from '#tests/flows/shared/view-replay.ts'
import { pathTitle, type QaPath, qaFlow, replayPath } from '#tests/mbt/index.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import { type RegisterPersonnelFakes, startRegisterPersonnel } from './fakes.ts'
import {
  fixtures,
  type RegisterPersonnelModelEvent,
  registerPersonnelEvents,
  registerPersonnelFlow,
  registerPersonnelModel,
} from './model.ts'

type Harness = RegisterPersonnelFakes & { user: UserEvent; clock: SimulatedClock }

/** Starts the real machine with deferred fake calls and renders the real view around it. */
async function open(): Promise<Harness> {
  const clock = new SimulatedClock()
  const fakes = startRegisterPersonnel({ clock })
  renderInRouter(
    (): ReactNode => <RegisterPersonnelView actorRef={fakes.actor} />,
    '/signup/personnel/inv-fixture',
  )
  await screen.findByRole('heading', { level: 1, name: 'Registration' })
  return { ...fakes, user: userEvent.setup(), clock }
}

function input(label: RegExp): HTMLInputElement {
  return screen.getByLabelText(label) as HTMLInputElement
}

function button(name: string): HTMLElement {
  return screen.getByRole('button', { name })
}

/**
 * Makes the form hold `phone`, both passwords and a valid or cleared Last name, touching only
 * what differs, so that the phone verification hears the same change the model names.
 */
async function setFields({ user }: Harness, valid: boolean, phone: string) {
  for (const label of [/^Password/, /^Confirm password/]) {
    if (input(label).value !== fixtures.password) {
      await user.clear(input(label))
      await user.type(input(label), fixtures.password)
    }
  }
  if (input(/^Phone number/).value !== phone) {
    await user.clear(input(/^Phone number/))
    await user.type(input(/^Phone number/), phone)
  }
  const lastName = valid ? fixtures.invitation.last_name : ''
  if (input(/^Last name/).value !== lastName) {
    await user.clear(input(/^Last name/))
    if (lastName) await user.type(input(/^Last name/), lastName)
  }
}

async function typeCode({ user }: Harness, code: string) {
  const field = screen.getByRole('textbox', { name: 'Confirmation code' })
  await user.clear(field)
  await user.type(field, code)
}

/** What the person does for each registration event, and what the fake calls answer. */
const performRegistration: Record<
  RegisterPersonnelModelEvent['type'],
  (h: Harness, event: RegisterPersonnelModelEvent) => Promise<void>
> = {
  'xstate.done.actor.loadInvitation': async (h) => {
    await act(async () => h.loadInvitation.latest().answer.resolve(fixtures.invitation))
  },
  'xstate.error.actor.loadInvitation': async (h) => {
    await act(async () => h.loadInvitation.latest().answer.reject(new Error(fixtures.missing)))
  },
  'xstate.done.actor.phoneVerification': async (h) => {
    expect(button('Get Code')).toBeDisabled()
    await setFields(h, true, fixtures.phone)
    await waitFor(() => expect(button('Get Code')).toBeEnabled())
    await h.user.click(button('Get Code'))
    await act(async () => h.sendCode.latest().answer.resolve({ authyId: fixtures.authyId }))
    await typeCode(h, fixtures.code)
    await waitFor(() => expect(button('Verify Code')).toBeEnabled())
    await h.user.click(button('Verify Code'))
    expect(h.verifyCode.latest().input).toEqual({
      authyId: fixtures.authyId,
      phone: fixtures.phone,
      code: fixtures.code,
    })
    await act(async () => h.verifyCode.latest().answer.resolve({ verified: true }))
  },
  'form.submit': async (h) => {
    await h.user.click(button('Submit'))
  },
  'xstate.done.actor.registerPersonnel': async (h) => {
    await act(async () => h.registerPersonnel.latest().answer.resolve({ user: fixtures.user }))
  },
  'xstate.error.actor.registerPersonnel': async (h) => {
    await act(async () =>
      h.registerPersonnel.latest().answer.reject(new Error(fixtures.registerFailure)),
    )
  },
}

/** What the person does for each phone verification event, and what the fake calls answer. */
const performPhone: Record<
  PhoneModelEvent['type'],
  (h: Harness, event: PhoneModelEvent) => Promise<void>
> = {
  'fields.change': async (h, event) => {
    if (event.type !== 'fields.change') return
    await setFields(h, event.valid, event.target.phone)
  },
  'code.change': async (h, event) => {
    if (event.type !== 'code.change') return
    await typeCode(h, event.code)
  },
  'code.send': async (h) => {
    await h.user.click(button('Get Code'))
  },
  'code.verify': async (h) => {
    await h.user.click(button('Verify Code'))
  },
  'xstate.done.actor.sendCode': async (h) => {
    await act(async () => h.sendCode.latest().answer.resolve({ authyId: fixtures.authyId }))
  },
  'xstate.error.actor.sendCode': async (h) => {
    await act(async () => h.sendCode.latest().answer.reject(new Error(phoneFixtures.sendFailure)))
  },
  'xstate.done.actor.verifyCode': async (h, event) => {
    if (event.type !== 'xstate.done.actor.verifyCode') return
    await act(async () => h.verifyCode.latest().answer.resolve(event.output))
  },
  'xstate.error.actor.verifyCode': async (h) => {
    await act(async () => h.verifyCode.latest().answer.reject(new Error('400')))
  },
  [RESEND_EVENT]: async (h) => {
    expect(
      screen.getByText('You can ask for a new code 30 seconds after the last one.'),
    ).toBeVisible()
    act(() => h.clock.increment(RESEND_COOLDOWN_MS))
  },
}

/** What the screen must show in each registration state (keyed by the leaf state's id). */
const expectRegistration: ScreenChecks<Harness> = {
  'registerPersonnel.loading': () => {
    expect(screen.getByRole('status')).toHaveTextContent('Opening your invitation…')
    expect(screen.queryByRole('button', { name: 'Submit' })).toBeNull()
  },
  'registerPersonnel.editing.verifyingPhone': () => {
    expect(screen.getByRole('heading', { level: 2, name: 'Registration Details' })).toBeVisible()
    expect(input(/^First name/)).toHaveValue(fixtures.invitation.first_name)
    expect(input(/^Last name/)).toHaveValue(fixtures.invitation.last_name)
    expect(screen.getByRole('combobox', { name: 'Title' })).toHaveValue(fixtures.invitation.title)
    expect(input(/^Email/)).toHaveValue(fixtures.invitation.email)
    expect(input(/^Email/)).toHaveAttribute('readonly')
    expect(input(/^Position/)).toHaveValue(fixtures.invitation.position)
    expect(input(/^Position/)).toHaveAttribute('readonly')
    expect(screen.getByRole('combobox', { name: 'Country code' })).toHaveValue('+1')
    expect(screen.getByText('Please retype your password')).toBeVisible()
    expect(input(/^Phone number/)).toBeEnabled()
    expect(button('Get Code')).toBeDisabled()
    expect(screen.getByRole('textbox', { name: 'Confirmation code' })).toBeDisabled()
    expect(button('Verify Code')).toBeDisabled()
    expect(button('Submit')).toBeDisabled()
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/signin')
  },
  'registerPersonnel.editing.phoneVerified': (snapshot) => {
    expect(screen.getByText('Phone number verified')).toBeVisible()
    expect(input(/^Phone number/)).toHaveAttribute('readonly')
    expect(input(/^Phone number/)).toHaveValue(fixtures.phone)
    expect(button('Get Code')).toBeDisabled()
    expect(screen.getByRole('textbox', { name: 'Confirmation code' })).toBeDisabled()
    expect(button('Verify Code')).toBeDisabled()
    expect(button('Submit')).toBeEnabled()
    if (snapshot.context.error) {
      expect(screen.getByText(snapshot.context.error).closest('[role="alert"]')).not.toBeNull()
    } else {
      expect(screen.queryByText(fixtures.registerFailure)).toBeNull()
    }
  },
  'registerPersonnel.submitting': (_snapshot, h) => {
    expect(button('Submit')).toHaveAttribute('data-loading')
    expect(screen.queryByText(fixtures.registerFailure)).toBeNull()
    expect(h.registerPersonnel.latest().input).toMatchObject({
      id: fixtures.input.invitationId,
      email: fixtures.invitation.email,
      position: fixtures.invitation.position,
      cell_phone: fixtures.phone,
      authyId: fixtures.authyId,
      first_name: fixtures.invitation.first_name,
      last_name: fixtures.invitation.last_name,
      password: fixtures.password,
      password_confirm: fixtures.password,
    })
  },
  'registerPersonnel.registered': (_snapshot, h) => {
    expect(screen.getByRole('status')).toHaveTextContent('Taking you to Sign In…')
    expect(h.onRegistered).toHaveBeenCalledWith({ user: fixtures.user })
  },
  'registerPersonnel.notFound': (_snapshot, h) => {
    expect(h.onInvitationMissing).toHaveBeenCalledTimes(1)
    expect(screen.queryByRole('button', { name: 'Submit' })).toBeNull()
  },
}

/**
 * What the screen must show for a phone verification snapshot: the disabled states of spec
 * section 4 follow the machine's `can`, plus the state's own texts.
 */
function expectPhoneScreen(phone: AnyMachineSnapshot) {
  const verified = phone.matches('verified')
  const busy = phone.matches('sendingCode') || phone.matches('verifying')
  expect(button('Get Code')).toHaveProperty('disabled', !phone.can({ type: 'code.send' }))
  expect(button('Verify Code')).toHaveProperty('disabled', !phone.can({ type: 'code.verify' }))
  expect(screen.getByRole('textbox', { name: 'Confirmation code' })).toHaveProperty(
    'disabled',
    !phone.matches('codeSent'),
  )
  expect(input(/^Phone number/)).toHaveProperty('readOnly', busy || verified)
  expect(button('Submit')).toHaveProperty('disabled', !verified)
  if (phone.matches('sendingCode')) expect(button('Get Code')).toHaveAttribute('data-loading')
  if (phone.matches('verifying')) expect(button('Verify Code')).toHaveAttribute('data-loading')
  const { notice, error } = phone.context
  if (notice && !error) expect(screen.getByText(notice)).toHaveAttribute('role', 'status')
  else expect(screen.queryByText('Confirmation Code is sent')).toBeNull()
  if (error) expect(screen.getByText(error)).toHaveAttribute('role', 'alert')
  const hint = screen.queryByText('You can ask for a new code 30 seconds after the last one.')
  if (phone.matches({ codeSent: 'coolingDown' })) expect(hint).toBeVisible()
  else expect(hint).toBeNull()
  const fillFirst = screen.queryByText('Fill in every field above to get a code by SMS.')
  if (phone.matches('idle') && !phone.can({ type: 'code.send' })) expect(fillFirst).toBeVisible()
  else expect(fillFirst).toBeNull()
  if (verified) expect(screen.getByText('Phone number verified')).toBeVisible()
  else expect(screen.queryByText('Phone number verified')).toBeNull()
}

const [registration, phone] = qaFlow(registerPersonnelFlow).sections

describe('personnel registration: paths from the machine, replayed through the view', () => {
  it.each((registration?.paths ?? []).map((p) => [pathTitle(p), p] as const))(
    '%s',
    async (_, path: QaPath) => {
      const h = await replayThroughView(path, {
        open,
        model: registerPersonnelModel,
        perform: performRegistration,
        checks: expectRegistration,
      })
      h.actor.stop()
    },
  )
})

describe('phone verification on the registration screen: paths from the child machine', () => {
  it.each((phone?.paths ?? []).map((p) => [pathTitle(p), p] as const))(
    '%s',
    async (_, path: QaPath) => {
      const { signature } = phone?.model ?? registerPersonnelModel
      const opened = async () => {
        const h = await open()
        await performRegistration['xstate.done.actor.loadInvitation'](
          h,
          registerPersonnelEvents[0] as never,
        )
        await screen.findByRole('heading', { level: 2, name: 'Registration Details' })
        const child = selectPhoneVerificationRef(h.actor.getSnapshot())
        if (!child) throw new Error('the phone verification is not running')
        return { h, child }
      }
      const { h, child } = await replayPath(path, {
        open: opened,
        perform: ({ h }, i) => {
          const event = path.steps[i]?.event as PhoneModelEvent
          return performPhone[event.type](h, event)
        },
        expect: async ({ child }, i) => {
          const state = path.steps[i]?.state as AnyMachineSnapshot
          await waitFor(() => expect(signature(child.getSnapshot())).toBe(signature(state)))
          await waitFor(() => expectPhoneScreen(child.getSnapshot()))
        },
      })
      if (child.getSnapshot().status === 'done') {
        // The registration took the verified phone and moved on to Submit.
        expect(h.actor.getSnapshot().value).toEqual({ editing: 'phoneVerified' })
        expect(h.actor.getSnapshot().context.verifiedPhone).toEqual({
          authyId: fixtures.authyId,
          phone: child.getSnapshot().output?.phone,
        })
      }
      h.actor.stop()
    },
  )
})

describe('personnel registration through the view', () => {
  it('has every registration screen state checked and every event performed', () => {
    expectEveryStateAndEvent(
      registerPersonnelModel.machine,
      expectRegistration,
      performRegistration,
      registerPersonnelEvents,
      (node) => node.type !== 'compound',
    )
    for (const event of phoneEvents) {
      expect(performPhone[event.type], event.type).toBeTypeOf('function')
    }
  })
})
