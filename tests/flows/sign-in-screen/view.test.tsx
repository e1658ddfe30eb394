import { act, screen, within } from '@testing-library/react'
import userEvent, { type UserEvent } from '@testing-library/user-event'
import type { ReactNode } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { type Actor, createActor, SimulatedClock } from 'xstate'
import type { ForgotPasswordForm, SignInPayload } from '#domain/auth.ts'
import type { Session } from '#domain/session.ts'
import {
  OUTDATED_NOTICE_MS,
  type ResetPasswordActorInput,
  type SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import { SignInScreen } from '#src/features/sign-in/sign-in-screen.tsx'
import {
  expectEveryStateAndEvent,
  expectReached,
  type ScreenChecks,
} from '#tests/flows/shared/view-replay.ts'
import { flowPaths, pathTitle, type QaPath, qaFlow, replayPath } from '#tests/mbt/index.ts'
import { controlled } from '#tests/support/deferred.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import {
  fixtures,
  OUTDATED_NOTICE_EVENT,
  type SignInScreenModelEvent,
  screenSignature,
  signInScreenEvents,
  signInScreenFlow,
} from './model.ts'

// The real hCaptcha widget loads a script from hCaptcha's servers; this stand-in offers the two
// things a person can make it do.
vi.mock('@hcaptcha/react-hcaptcha', () => ({
  default: ({
    onVerify,
    onExpire,
  }: {
    onVerify: (t: string, k: string) => void
    onExpire: () => void
  }) => (
    <div>
      <button type="button" onClick={() => onVerify('captcha-token', 'ekey')}>
        I am human
      </button>
      <button type="button" onClick={() => onExpire()}>
        Let the check expire
      </button>
    </div>
  ),
}))

type Harness = {
  actor: Actor<typeof signInScreenMachine>
  user: UserEvent
  clock: SimulatedClock
  signIn: ReturnType<typeof controlled<Session, SignInPayload>>
  requestPasswordReset: ReturnType<typeof controlled<void, ForgotPasswordForm>>
  resetPassword: ReturnType<typeof controlled<Session, ResetPasswordActorInput>>
  onSignedIn: ReturnType<typeof vi.fn>
  onResetCodeUsed: ReturnType<typeof vi.fn>
  onResetLinkOutdated: ReturnType<typeof vi.fn>
}

/** Renders the real screen, inside a router (for its Sign Up link), around a started actor. */
async function open(input: SignInScreenInput): Promise<Harness> {
  const signIn = controlled<Session, SignInPayload>()
  const requestPasswordReset = controlled<void, ForgotPasswordForm>()
  const resetPassword = controlled<Session, ResetPasswordActorInput>()
  const onSignedIn = vi.fn()
  const onResetCodeUsed = vi.fn()
  const onResetLinkOutdated = vi.fn()
  const clock = new SimulatedClock()
  const actor = createActor(
    signInScreenMachine.provide({
      actors: {
        signIn: signIn.logic,
        requestPasswordReset: requestPasswordReset.logic,
        resetPassword: resetPassword.logic,
      },
      actions: {
        onSignedIn: (_, params) => onSignedIn(params),
        onResetCodeUsed: (_, params) => onResetCodeUsed(params),
        onResetLinkOutdated: (_, params) => onResetLinkOutdated(params),
      },
    }),
    { input, clock },
  ).start()
  renderInRouter(
    (): ReactNode => <SignInScreen actorRef={actor} captchaSiteKey="test-site-key" />,
    '/signin',
  )
  await screen.findByRole('heading', { level: 1 })
  return {
    actor,
    user: userEvent.setup(),
    clock,
    signIn,
    requestPasswordReset,
    resetPassword,
    onSignedIn,
    onResetCodeUsed,
    onResetLinkOutdated,
  }
}

async function typeInto(user: UserEvent, label: string | RegExp, text: string) {
  const field = screen.getByLabelText(label)
  await user.clear(field)
  await user.type(field, text)
}

/** What the person does for each event, and what answers the fake actors give. */
const perform: Record<SignInScreenModelEvent['type'], (h: Harness) => Promise<void>> = {
  'signInForm.submit': async ({ user }) => {
    await typeInto(user, /^Email/, fixtures.signIn.email)
    await typeInto(user, /^Password/, fixtures.signIn.password)
    const remember = screen.getByRole('checkbox', { name: 'Remember me' })
    if (!(remember as HTMLInputElement).checked) await user.click(remember)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
  },
  'forgotForm.submit': async ({ user }) => {
    await typeInto(user, /^Email/, fixtures.forgot.email)
    await user.click(screen.getByRole('button', { name: 'Reset' }))
  },
  'resetForm.submit': async ({ user }) => {
    await typeInto(user, /^New password/, fixtures.reset.password)
    await typeInto(user, /^Confirm password/, fixtures.reset.confirm_password)
    await user.click(screen.getByRole('button', { name: 'Reset and Sign In' }))
  },
  'link.forgot': async ({ user }) => {
    await user.click(screen.getByRole('button', { name: 'Forgot Password' }))
  },
  'link.back': async ({ user, actor }) => {
    const name = actor.getSnapshot().matches({ forgotPassword: 'sent' })
      ? 'Back to Sign In'
      : 'Cancel'
    await user.click(screen.getByRole('button', { name }))
  },
  'captcha.verified': async ({ user }) => {
    await user.click(await screen.findByRole('button', { name: 'I am human' }))
  },
  'captcha.expired': async ({ user }) => {
    await user.click(await screen.findByRole('button', { name: 'Let the check expire' }))
  },
  'xstate.done.actor.signIn': async ({ signIn }) => {
    await act(async () => signIn.latest().answer.resolve(fixturesSession()))
  },
  'xstate.error.actor.signIn': async ({ signIn }) => {
    await act(async () => signIn.latest().answer.reject(new Error(fixtures.signInFailure)))
  },
  'xstate.done.actor.requestPasswordReset': async ({ requestPasswordReset }) => {
    await act(async () => requestPasswordReset.latest().answer.resolve())
  },
  'xstate.error.actor.requestPasswordReset': async ({ requestPasswordReset }) => {
    await act(async () =>
      requestPasswordReset.latest().answer.reject(new Error(fixtures.forgotFailure)),
    )
  },
  'xstate.done.actor.resetPassword': async ({ resetPassword }) => {
    await act(async () => resetPassword.latest().answer.resolve(fixturesSession()))
  },
  'xstate.error.actor.resetPassword': async ({ resetPassword }) => {
    await act(async () => resetPassword.latest().answer.reject(new Error(fixtures.resetFailure)))
  },
  [OUTDATED_NOTICE_EVENT]: async ({ clock }) => {
    // The notice is still there a moment before the 3 seconds are over.
    act(() => clock.increment(OUTDATED_NOTICE_MS - 1))
    expect(screen.getByRole('alert')).toHaveTextContent('Password Reset link is outdated!')
    act(() => clock.increment(1))
  },
}

function fixturesSession(): Session {
  return signInScreenEvents.find((e) => e.type === 'xstate.done.actor.signIn')?.output as Session
}

type Snapshot = ReturnType<Harness['actor']['getSnapshot']>

function expectBanners(snapshot: Snapshot) {
  const { error, notice } = snapshot.context
  const alerts = screen.queryAllByRole('alert').map((el) => el.textContent)
  if (error) expect(alerts).toContain(error)
  else expect(alerts.filter((text) => text === fixtures.signInFailure)).toEqual([])
  if (notice) expect(screen.getByRole('status')).toHaveTextContent(notice)
}

function expectSignInForm(snapshot: Snapshot) {
  expect(screen.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
  expect(screen.getByLabelText(/^Email/)).toBeVisible()
  expect(screen.getByLabelText(/^Password/)).toBeVisible()
  expect(screen.getByRole('checkbox', { name: 'Remember me' })).toBeVisible()
  expect(screen.getByRole('button', { name: 'Forgot Password' })).toBeVisible()
  expect(screen.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/signup')
  expectBanners(snapshot)
  const { captchaRequired, captchaError } = snapshot.context
  if (captchaRequired) expect(screen.getByText('Human check')).toBeVisible()
  else expect(screen.queryByText('Human check')).toBeNull()
  if (captchaError) expect(screen.getByText(captchaError)).toHaveAttribute('role', 'alert')
  else expect(screen.queryByText('This field is required.')).toBeNull()
}

/** What the screen must show in each state (keyed by the leaf state's id). */
const expectScreen: ScreenChecks<Harness> = {
  'signInScreen.signIn.editing.ready': (snapshot) => {
    expectSignInForm(snapshot)
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled()
    expect(screen.queryByText('Password Reset link is outdated!')).toBeNull()
  },
  'signInScreen.signIn.editing.linkOutdated': (snapshot) => {
    expectSignInForm(snapshot)
    expect(screen.getByRole('alert')).toHaveTextContent('Password Reset link is outdated!')
  },
  'signInScreen.signIn.submitting': (snapshot) => {
    expectSignInForm(snapshot)
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeDisabled()
  },
  'signInScreen.forgotPassword.editing': (snapshot) => {
    expect(screen.getByRole('heading', { level: 1, name: 'Forgot Password' })).toBeVisible()
    expect(screen.getByLabelText(/^Email/)).toBeVisible()
    expect(screen.getByRole('button', { name: 'Reset' })).toBeEnabled()
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeEnabled()
    expectBanners(snapshot)
  },
  'signInScreen.forgotPassword.sending': () => {
    expect(screen.getByRole('button', { name: 'Reset' })).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeDisabled()
  },
  'signInScreen.forgotPassword.sent': () => {
    expect(
      screen.getByRole('heading', { level: 1, name: 'We have sent the link to your email' }),
    ).toBeVisible()
    expect(screen.getByRole('status')).toHaveTextContent(
      'Cool! Password recovery instruction has been sent to your email.',
    )
    // example.com has no known webmail: no Check email (a mailto: would open an empty message).
    expect(screen.queryByRole('link', { name: 'Check email' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Back to Sign In' })).toBeVisible()
  },
  'signInScreen.resetPassword.editing': () => {
    expect(
      screen.getByRole('heading', { level: 1, name: 'Please enter a new password!' }),
    ).toBeVisible()
    expect(screen.getByLabelText(/^New password/)).toBeVisible()
    expect(screen.getByLabelText(/^Confirm password/)).toBeVisible()
    expect(screen.getByRole('button', { name: 'Show new password' })).toBeVisible()
    expect(screen.getByRole('button', { name: 'Show confirm password' })).toBeVisible()
    expect(screen.getByRole('button', { name: 'Reset and Sign In' })).toBeEnabled()
  },
  'signInScreen.resetPassword.submitting': () => {
    expect(screen.getByRole('button', { name: 'Reset and Sign In' })).toBeDisabled()
  },
  'signInScreen.signedIn': (_snapshot, h) => {
    expect(within(screen.getByRole('status')).getByText('Signing you in…')).toBeVisible()
    expect(h.onSignedIn).toHaveBeenLastCalledWith({
      session: fixturesSession(),
      remember: h.signIn.calls.length > 0 && h.resetPassword.calls.length === 0,
    })
  },
}

/** The actor reached the modelled state, and the screen shows it. */
const expectStep = (h: Harness, expected: Snapshot) =>
  expectReached(
    h,
    expected,
    { machine: signInScreenMachine, signature: screenSignature },
    expectScreen,
  )

const paths = flowPaths(qaFlow(signInScreenFlow))

describe('sign-in screen: paths generated from the machine, replayed through the views', () => {
  it.each(paths.map((p) => [pathTitle(p), p] as const))('%s', async (_, path: QaPath) => {
    const h = await replayPath(path, {
      open: () => open(path.input as SignInScreenInput),
      perform: (h, i) =>
        perform[(path.steps[i]?.event.type ?? '') as SignInScreenModelEvent['type']](h),
      expect: (h, i) => expectStep(h, path.steps[i]?.state as Snapshot),
    })
    h.actor.stop()
  })

  it('opens in each of the three first views the opening step can choose', () => {
    const firsts = new Set(paths.map((p) => JSON.stringify(p.steps[0]?.state.value)))
    expect(firsts).toEqual(
      new Set([
        JSON.stringify({ signIn: { editing: 'ready' } }),
        JSON.stringify({ resetPassword: 'editing' }),
        JSON.stringify({ signIn: { editing: 'linkOutdated' } }),
      ]),
    )
  })

  it('has a screen check for every state and an action for every event', () => {
    expectEveryStateAndEvent(
      signInScreenMachine,
      expectScreen,
      perform,
      signInScreenEvents,
      (node) => node.type !== 'compound',
    )
  })
})
