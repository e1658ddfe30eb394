/**
 * The wallet sign-in's jsdom driver: the machine's paths replayed through the real view with
 * user-event, the two calls answered by the test and the machine on a simulated clock (the wait
 * before a new code and the lock's end, and the view's countdown with them), checking after every
 * step that the actor reached the modelled state and that the screen shows it.
 */
import { act, screen } from '@testing-library/react'
import type { UserEvent } from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { type Actor, createActor, SimulatedClock } from 'xstate'
import type { WalletCodeAnswer, WalletSessionAnswer } from '#domain/wallet.ts'
import { WALLET_SIGN_IN_TEXT } from '#machines/wallet-sign-in/messages.ts'
import {
  type OpenWalletSessionInput,
  type SendWalletCodeInput,
  walletSignInMachine,
} from '#machines/wallet-sign-in/wallet-sign-in.machine.ts'
import { WalletSignInView } from '#src/wallet/sign-in/wallet-sign-in.tsx'
import {
  expectEveryStateAndEvent,
  type PerformEach,
  replayThroughView,
  type ScreenChecks,
} from '#tests/flows/shared/view-replay.ts'
import { flowPaths, pathTitle, qaFlow } from '#tests/mbt/index.ts'
import { controlled } from '#tests/support/deferred.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import {
  walletFixtures as f,
  LOCK_WAIT_EVENT,
  walletSignInModel as model,
  RESEND_WAIT_EVENT,
  type WalletSignInModelEvent,
  walletSignInEvents,
  walletSignInFlow,
} from './model.ts'

type Harness = {
  actor: Actor<typeof walletSignInMachine>
  user: UserEvent
  clock: SimulatedClock
  sendWalletCode: ReturnType<typeof controlled<WalletCodeAnswer, SendWalletCodeInput>>
  openWalletSession: ReturnType<typeof controlled<WalletSessionAnswer, OpenWalletSessionInput>>
  onSignedIn: ReturnType<typeof vi.fn>
}

/** Starts the real machine on a simulated clock with calls the test answers, and its view. */
async function open(): Promise<Harness> {
  const sendWalletCode = controlled<WalletCodeAnswer, SendWalletCodeInput>()
  const openWalletSession = controlled<WalletSessionAnswer, OpenWalletSessionInput>()
  const clock = new SimulatedClock()
  const onSignedIn = vi.fn()
  const actor = createActor(
    walletSignInMachine.provide({
      actors: { sendWalletCode: sendWalletCode.logic, openWalletSession: openWalletSession.logic },
    }),
    { input: { practiceId: f.practiceId }, clock },
  ).start()
  const { user } = renderWithProviders(
    <WalletSignInView actorRef={actor} practiceName={f.practiceName} onSignedIn={onSignedIn} />,
  )
  await screen.findByRole('heading', { level: 1, name: 'Sign in to your wallet' })
  return { actor, user, clock, sendWalletCode, openWalletSession, onSignedIn }
}

const button = (name: string | RegExp) => screen.getByRole('button', { name })
const contactField = () => screen.getByRole('textbox', { name: /^E-mail or mobile phone/ })
const codeField = () => screen.getByRole('textbox', { name: /^6-digit code/ })

async function retype(user: UserEvent, field: HTMLElement, text: string) {
  await user.clear(field)
  await user.type(field, text)
}

/** Moves the simulated clock on by whole seconds, one at a time (as the countdown ticks). */
function tick(clock: SimulatedClock, seconds: number) {
  for (let i = 0; i < seconds; i++) act(() => clock.increment(1000))
}

/** What the patient does for each event, and what the fake calls answer. */
const perform: PerformEach<Harness, WalletSignInModelEvent> = {
  'contact.change': ({ user }, { value }) => retype(user, contactField(), value),
  'contact.submit': ({ user }) => user.click(button('Send me a code')),
  'contact.edit': ({ user }) => user.click(button('Use a different e-mail or phone')),
  'code.change': ({ user }, { value }) => retype(user, codeField(), value),
  'code.submit': ({ user }) => user.click(button('Sign in')),
  'code.resend': ({ user }) => user.click(button('Send a new code')),
  retry: ({ user }) => user.click(button('Try again')),
  'xstate.done.actor.sendWalletCode': async (h, { output }) => {
    expect(h.sendWalletCode.latest().input).toEqual({
      practiceId: f.practiceId,
      contact: h.actor.getSnapshot().context.contact.trim(),
    })
    await act(async () => h.sendWalletCode.latest().answer.resolve(output))
  },
  'xstate.error.actor.sendWalletCode': async (h, { error }) => {
    await act(async () => h.sendWalletCode.latest().answer.reject(error))
  },
  'xstate.done.actor.openWalletSession': async (h, { output }) => {
    expect(h.openWalletSession.latest().input).toEqual({
      practiceId: f.practiceId,
      contact: f.contact,
      code: f.code,
    })
    await act(async () => h.openWalletSession.latest().answer.resolve(output))
  },
  'xstate.error.actor.openWalletSession': async (h, { error }) => {
    await act(async () => h.openWalletSession.latest().answer.reject(error))
  },
  [RESEND_WAIT_EVENT]: async ({ clock }) => {
    // The paths move the clock only here: the countdown starts at the server's 30 s.
    expect(screen.getByText('Send a new code in 30 s')).toBeVisible()
    tick(clock, 3)
    expect(screen.getByText('Send a new code in 27 s')).toBeVisible()
    expect(screen.queryByRole('button', { name: 'Send a new code' })).toBeNull()
    tick(clock, 27)
  },
  [LOCK_WAIT_EVENT]: async ({ clock }) => {
    act(() => clock.increment(15 * 60 * 1000 - 1))
    expect(screen.getByRole('alert')).toHaveTextContent(f.lockedText)
    act(() => clock.increment(1))
  },
}

type Snapshot = ReturnType<Harness['actor']['getSnapshot']>

/** The alerts on screen: exactly the state's message and field error, or none. */
function expectAlerts(s: Snapshot) {
  const expected = [s.context.error, s.context.contactError, s.context.codeError].filter(
    (text): text is string => text !== null,
  )
  const shown = screen.queryAllByRole('alert').map((alert) => alert.textContent?.trim())
  expect(shown.sort()).toEqual(expected.sort())
}

function expectContactForm(s: Snapshot, submit: 'Send me a code' | 'Try again') {
  expect(contactField()).toHaveValue(s.context.contact)
  expect(contactField()).toHaveAccessibleDescription(/We will send you a 6-digit code to sign in\./)
  expect(button(submit)).toBeVisible()
  expect(screen.queryByRole('textbox', { name: /^6-digit code/ })).toBeNull()
  expectAlerts(s)
}

function expectCodeForm(s: Snapshot, submit: 'Sign in' | 'Try again') {
  expect(screen.getByRole('status')).toHaveTextContent(`We sent a 6-digit code to ${f.contact}.`)
  expect(codeField()).toHaveValue(s.context.code)
  expect(codeField()).toHaveAttribute('autocomplete', 'one-time-code')
  expect(codeField()).toHaveAttribute('inputmode', 'numeric')
  expect(button(submit)).toBeVisible()
  expect(button('Use a different e-mail or phone')).toBeVisible()
  if (s.context.canResend) {
    expect(button('Send a new code')).toBeVisible()
    expect(screen.queryByText(/^Send a new code in/)).toBeNull()
  } else {
    expect(screen.getByText(/^Send a new code in \d+ s$/)).toBeVisible()
    expect(screen.queryByRole('button', { name: 'Send a new code' })).toBeNull()
  }
  expectAlerts(s)
}

/** What the screen must show in each state (keyed by the state node id). */
const expectScreen: ScreenChecks<Harness> = {
  'walletSignIn.enteringContact': (s) => {
    expectContactForm(s, 'Send me a code')
    expect(button('Send me a code')).toBeEnabled()
    expect(
      screen.getByText(`Your points, offers and membership at ${f.practiceName}.`, {
        exact: false,
      }),
    ).toBeVisible()
    // Back from another step (or a refused contact): the field has the focus.
    if (s.context.sendCount > 0 || s.context.contactError) {
      expect(contactField()).toHaveFocus()
    }
  },
  'walletSignIn.sendingCode': (s) => {
    expectContactForm(s, 'Send me a code')
    expect(button('Send me a code')).toBeDisabled()
    expect(contactField()).toHaveAttribute('readonly')
  },
  'walletSignIn.sendFailed': (s) => {
    expectContactForm(s, 'Try again')
    expect(button('Try again')).toHaveFocus()
  },
  'walletSignIn.codeSent.entering': (s) => {
    expectCodeForm(s, 'Sign in')
    expect(button('Sign in')).toBeEnabled()
    expect(codeField()).toHaveFocus()
  },
  'walletSignIn.codeSent.verifying': (s) => {
    expectCodeForm(s, 'Sign in')
    expect(button('Sign in')).toBeDisabled()
    expect(codeField()).toHaveAttribute('readonly')
    expect(button('Use a different e-mail or phone')).toBeDisabled()
  },
  'walletSignIn.codeSent.wrongCode': (s) => {
    expectCodeForm(s, 'Sign in')
    // The field's own error, announced: the code as typed, selected, to correct or type again.
    expect(screen.getByRole('alert')).toHaveTextContent(
      'That code is not right. Check it and try again.',
    )
    expect(codeField()).toHaveAccessibleDescription(
      'That code is not right. Check it and try again.',
    )
    expect(codeField()).toHaveValue(f.code)
    expect(codeField()).toHaveFocus()
    expect(codeField()).toBeInvalid()
  },
  'walletSignIn.codeSent.verifyFailed': (s) => {
    expectCodeForm(s, 'Try again')
    expect(codeField()).toHaveValue(f.code)
    expect(button('Try again')).toHaveFocus()
  },
  'walletSignIn.expiredCode': (s) => {
    expect(screen.getByRole('alert')).toHaveTextContent(
      'This code has expired. We can send you a new one.',
    )
    expect(button('Send a new code')).toHaveFocus()
    expect(button('Use a different e-mail or phone')).toBeEnabled()
    expect(screen.queryByRole('textbox')).toBeNull()
    expectAlerts(s)
  },
  'walletSignIn.locked': (s) => {
    expect(screen.getByRole('alert')).toHaveTextContent(f.lockedText)
    expect(button('Use a different e-mail or phone')).toHaveFocus()
    expect(screen.queryByRole('button', { name: 'Send a new code' })).toBeNull()
    expect(screen.queryByRole('textbox')).toBeNull()
    expectAlerts(s)
  },
  'walletSignIn.signedIn': (_s, h) => {
    expect(screen.getByRole('status')).toHaveTextContent('You are signed in.')
    expect(h.onSignedIn).toHaveBeenCalledTimes(1)
    expect(h.onSignedIn).toHaveBeenCalledWith(f.session)
  },
}

const paths = flowPaths(qaFlow(walletSignInFlow))

describe('wallet sign-in: paths generated from the machine, replayed through the view', () => {
  it.each(paths.map((p) => [pathTitle(p), p] as const))('%s', async (_, path) => {
    const h = await replayThroughView(path, {
      open,
      model,
      perform,
      checks: expectScreen,
    })
    h.actor.stop()
  })

  it('has a screen check for every state and an action for every event', () => {
    expectEveryStateAndEvent(
      walletSignInMachine,
      expectScreen,
      perform,
      walletSignInEvents,
      (node) => node.type !== 'compound',
    )
  })

  it('uses the words of the statechart', () => {
    expect(WALLET_SIGN_IN_TEXT.resendIn(27)).toBe('Send a new code in 27 s')
  })
})
