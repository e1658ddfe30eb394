/**
 * The patient wallet's sign-in by code: the fixture events the real machine is walked with, what
 * tells its states apart, what the screen allows, a person's words for each state and event, and
 * what the running product needs for some steps. The view test (`view.test.tsx`) and the browser
 * replay (`browser.spec.ts`) replay the same paths; `npm run paths` writes them down.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import {
  WALLET_CODE_MINUTES,
  WALLET_LOCK_MINUTES,
  WALLET_MAX_CODE_TRIES,
  WALLET_RESEND_AFTER_SECONDS,
  type WalletCodeAnswer,
  type WalletSessionAnswer,
} from '#domain/wallet.ts'
import { WALLET_SIGN_IN_TEXT } from '#machines/wallet-sign-in/messages.ts'
import {
  codeProblem,
  contactProblem,
  type WalletSignInEvent,
  walletSignInMachine,
} from '#machines/wallet-sign-in/wallet-sign-in.machine.ts'
import { WalletSignInError } from '#machines/wallet-sign-in/wallet-sign-in-error.ts'
import {
  type CallAnswers,
  type FlowSpec,
  type Model,
  nextAnswer,
  type QaPath,
  type QaStep,
  type StepPlan,
} from '#tests/mbt/index.ts'

/** What the patient types, and what the fake server answers. */
export const walletFixtures = {
  practiceId: 1,
  practiceName: 'Glow Demo Med Spa',
  contact: 'jane.doe@example.com',
  /** Not an e-mail nor a phone. */
  badContact: 'jane.doe@',
  code: '123456',
  /** Too short to send. */
  shortCode: '1234',
  codeAnswer: { sent: true, resend_after_seconds: WALLET_RESEND_AFTER_SECONDS } as WalletCodeAnswer,
  session: {
    token: 'wallet-session-token',
    expires_at: '2026-06-15T09:30:00.000Z',
  } as WalletSessionAnswer,
  /** The lock's end in the model: 15 minutes after the last wrong code. */
  lockedUntil: '2026-06-15T18:42:00.000Z',
  /** The sentence the lock is shown with (the view test formats its own time the same way). */
  lockedText: WALLET_SIGN_IN_TEXT.locked('18:42'),
  offline: WALLET_SIGN_IN_TEXT.offline,
} as const

/** The failures the calls reject with, one per reason. */
export const walletErrors = {
  sendOffline: new WalletSignInError('failed', walletFixtures.offline),
  wrong: new WalletSignInError('wrong', WALLET_SIGN_IN_TEXT.codeWrong),
  expired: new WalletSignInError('expired', WALLET_SIGN_IN_TEXT.codeExpired),
  locked: new WalletSignInError('locked', walletFixtures.lockedText, {
    retryAfterSeconds: WALLET_LOCK_MINUTES * 60,
    until: walletFixtures.lockedUntil,
  }),
  verifyOffline: new WalletSignInError('failed', walletFixtures.offline),
} as const

/** The delayed events: the wait before a new code, and the lock's end. */
export const RESEND_WAIT_EVENT = 'xstate.after.resendWait.walletSignIn.codeSent'
export const LOCK_WAIT_EVENT = 'xstate.after.lockWait.walletSignIn.locked'

/** Events of the graph: the patient's, the two calls' answers and the two delays. */
export type WalletSignInModelEvent =
  | WalletSignInEvent
  | CallAnswers<'sendWalletCode', WalletCodeAnswer>
  | CallAnswers<'openWalletSession', WalletSessionAnswer>
  | { type: typeof RESEND_WAIT_EVENT }
  | { type: typeof LOCK_WAIT_EVENT }

/** Every event with fixture payloads. */
export const walletSignInEvents: WalletSignInModelEvent[] = [
  { type: 'contact.change', value: walletFixtures.contact },
  { type: 'contact.change', value: walletFixtures.badContact },
  { type: 'contact.submit' },
  { type: 'contact.edit' },
  { type: 'code.change', value: walletFixtures.code },
  { type: 'code.change', value: walletFixtures.shortCode },
  { type: 'code.submit' },
  { type: 'code.resend' },
  { type: 'retry' },
  { type: 'xstate.done.actor.sendWalletCode', output: walletFixtures.codeAnswer },
  { type: 'xstate.error.actor.sendWalletCode', error: walletErrors.sendOffline },
  { type: 'xstate.done.actor.openWalletSession', output: walletFixtures.session },
  { type: 'xstate.error.actor.openWalletSession', error: walletErrors.wrong },
  { type: 'xstate.error.actor.openWalletSession', error: walletErrors.expired },
  { type: 'xstate.error.actor.openWalletSession', error: walletErrors.locked },
  { type: 'xstate.error.actor.openWalletSession', error: walletErrors.verifyOffline },
  { type: RESEND_WAIT_EVENT },
  { type: LOCK_WAIT_EVENT },
]

/**
 * What the screen shows and the guards read: the state, the messages, whether the typed contact
 * and code can be sent, and whether a new code is offered. The typed text itself and the number
 * of codes sent are left out, or the graph would never end.
 */
export function walletSignInSignature(snapshot: AnyMachineSnapshot): string {
  const { contact, code, contactError, codeError, error, canResend } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    contactValid: contactProblem(contact) === null,
    codeValid: codeProblem(code) === null,
    contactError,
    codeError,
    error,
    canResend,
  })
}

const states: Record<string, string> = {
  'walletSignIn.enteringContact':
    'You see: "Sign in to your wallet", the field E-mail or mobile phone and Send me a code',
  'walletSignIn.sendingCode': 'You see: Send me a code is busy',
  'walletSignIn.sendFailed':
    'You see: why the code was not sent (in red), the e-mail or phone as you typed it, and Try again',
  'walletSignIn.codeSent.entering': `You see: "We sent a 6-digit code to …", the field 6-digit code, Sign in, Use a different e-mail or phone, and "Send a new code in ${WALLET_RESEND_AFTER_SECONDS} s" counting down (Send a new code once the wait is over)`,
  'walletSignIn.codeSent.verifying': 'You see: Sign in is busy; the code field waits',
  'walletSignIn.codeSent.wrongCode': `You see: "${WALLET_SIGN_IN_TEXT.codeWrong}" in red, with the code as you typed it`,
  'walletSignIn.codeSent.verifyFailed':
    'You see: why the code could not be checked (in red), the code as you typed it, and Try again',
  'walletSignIn.expiredCode': `You see: "${WALLET_SIGN_IN_TEXT.codeExpired}", Send a new code and Use a different e-mail or phone`,
  'walletSignIn.locked':
    'You see: "Too many tries. Try again after …" (the time the lock ends, 15 minutes after the last wrong code) and Use a different e-mail or phone',
  'walletSignIn.signedIn': 'You see: "You are signed in.", then your wallet',
}

const eventWords: Record<WalletSignInModelEvent['type'], (event: never) => string> = {
  'contact.change': ({ value }: { value: string }) => `Type ${value} as E-mail or mobile phone`,
  'contact.submit': () => 'Click Send me a code',
  'contact.edit': () => 'Click Use a different e-mail or phone',
  'code.change': ({ value }: { value: string }) => `Type ${value} as the 6-digit code`,
  'code.submit': () => 'Click Sign in',
  'code.resend': () => 'Click Send a new code',
  retry: () => 'Click Try again',
  'xstate.done.actor.sendWalletCode': () =>
    'The server sends the code (by e-mail or text; it answers the same for an unknown contact)',
  'xstate.error.actor.sendWalletCode': () =>
    `The request does not reach the server: you see "${walletFixtures.offline}"`,
  'xstate.done.actor.openWalletSession': () =>
    'The server accepts the code and opens a patient session',
  'xstate.error.actor.openWalletSession': ({ error }: { error: Error }) => {
    switch (error) {
      case walletErrors.wrong:
        return 'The server refuses the code: it is not the one sent'
      case walletErrors.expired:
        return `The server refuses the code: it is older than ${WALLET_CODE_MINUTES} minutes`
      case walletErrors.locked:
        return `The server refuses the code and locks sign-in for ${WALLET_LOCK_MINUTES} minutes: it is the ${WALLET_MAX_CODE_TRIES}th wrong code`
      default:
        return `The request does not reach the server: you see "${walletFixtures.offline}"`
    }
  },
  [RESEND_WAIT_EVENT]: () =>
    `Wait ${WALLET_RESEND_AFTER_SECONDS} seconds after the code was sent: Send a new code appears`,
  [LOCK_WAIT_EVENT]: () =>
    `Wait until the lock ends (${WALLET_LOCK_MINUTES} minutes): the e-mail or phone field comes back, as typed`,
}

/** The wallet sign-in's model. */
export const walletSignInModel: Model = {
  name: 'walletSignIn',
  title: 'Wallet sign-in',
  source: {
    file: 'machines/wallet-sign-in/wallet-sign-in.machine.ts',
    name: 'walletSignInMachine',
    doc: 'wallet-sign-in',
  },
  machine: walletSignInMachine,
  events: walletSignInEvents,
  scenarios: [
    { name: 'Open the wallet signed out', input: { practiceId: walletFixtures.practiceId } },
  ],
  signature: walletSignInSignature,
  allows: (snapshot, event) => {
    // While the code is being checked the buttons wait.
    if (snapshot.matches({ codeSent: 'verifying' })) {
      return event.type !== 'code.resend' && event.type !== 'contact.edit'
    }
    // The wait before a new code ends once per code.
    if (event.type === RESEND_WAIT_EVENT) return snapshot.context.canResend === false
    return true
  },
  states,
  describeEvent: (event: EventObject) =>
    (eventWords[event.type as WalletSignInModelEvent['type']] as (e: EventObject) => string)?.(
      event,
    ) ?? '',
}

// ---------------------------------------------------------------------------------------------
// The running product: what the replay needs for some steps

/** Whether the answer of the next `openWalletSession` after step `i` is `error`. */
export function nextSessionAnswerIs(path: QaPath, i: number, error: Error): boolean {
  const answer = nextAnswer(path, i, 'openWalletSession') as
    | (EventObject & { error?: unknown })
    | undefined
  return answer?.error === error
}

/** The messages the screen shows besides the state's words. */
function extras(path: QaPath, i: number): string[] {
  const now = (path.steps[i] as QaStep).state.context
  const then = path.steps[i - 1]?.state.context
  const seen: string[] = []
  if (now.contactError && now.contactError !== then?.contactError) {
    seen.push(`"${now.contactError}" under E-mail or mobile phone`)
  }
  if (now.codeError && now.codeError !== then?.codeError) {
    seen.push(`"${now.codeError}" under 6-digit code`)
  }
  if (now.canResend && !then?.canResend) seen.push('Send a new code')
  return seen
}

/** How the replay makes a lost connection. */
const UNREACHABLE =
  'a lost connection cannot be arranged with the real server; the request is answered 503 without a body, as a proxy answers when the server cannot be reached.'

function step(path: QaPath, i: number): StepPlan {
  const event = (path.steps[i] as QaStep).event as WalletSignInModelEvent
  if (event.type === 'contact.change' && event.value === walletFixtures.contact) {
    return {
      text: "Type the e-mail of the path's own patient as E-mail or mobile phone",
    }
  }
  if (event.type === 'code.change' && event.value === walletFixtures.code) {
    if (
      nextSessionAnswerIs(path, i, walletErrors.wrong) ||
      nextSessionAnswerIs(path, i, walletErrors.locked)
    ) {
      return { text: 'Type a 6-digit code that is not the one in the e-mail' }
    }
    return {
      text: 'Type the 6-digit code from the e-mail (the development outbox, /api/dev/outbox)',
    }
  }
  if (event.type === 'xstate.error.actor.openWalletSession') {
    const { error } = event
    if (error === walletErrors.locked) {
      return {
        note: `The replay spends ${WALLET_MAX_CODE_TRIES - 1} wrong codes for the contact through the API before this try, so that this one is the ${WALLET_MAX_CODE_TRIES}th.`,
      }
    }
    if (error === walletErrors.expired) {
      return {
        intercepted: `a code ${WALLET_CODE_MINUTES} minutes old cannot be waited for; the session request gets the server's answer for one (410, reason expired).`,
      }
    }
    if (error === walletErrors.verifyOffline) {
      return { intercepted: UNREACHABLE }
    }
  }
  if (event.type === 'xstate.error.actor.sendWalletCode') {
    return { intercepted: UNREACHABLE }
  }
  if (event.type === RESEND_WAIT_EVENT) {
    return {
      note: "The replay moves the browser's clock on by 30 seconds instead of waiting.",
    }
  }
  if (event.type === LOCK_WAIT_EVENT) {
    return {
      note: "The replay moves the browser's clock on by 15 minutes instead of waiting.",
    }
  }
  return {}
}

/** The wallet sign-in flow: one section, its own machine. */
export const walletSignInFlow: FlowSpec = {
  id: 'wallet-sign-in',
  title: 'Wallet sign-in',
  intro:
    "The patient's wallet at /wallet/{practiceId}, signed out: the patient signs in with a 6-digit code sent to their e-mail or phone (no password). Codes land in the development outbox at /api/dev/outbox.",
  viewTest: 'tests/flows/wallet-sign-in/view.test.tsx',
  browser: true,
  sections: [
    {
      key: 'walletSignIn',
      model: walletSignInModel,
      title: 'Wallet sign-in',
      intro: 'Paths of the wallet sign-in machine.',
      extras,
      host: () => 'local',
      start: () =>
        "Open /wallet/1 (the demo practice's wallet) in a browser with no wallet session. The replay adds a patient of its own to the demo practice through the API for each path, with an e-mail no other path uses.",
      step,
    },
  ],
}
