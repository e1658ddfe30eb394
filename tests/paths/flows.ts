/**
 * The QA paths (issue 6): every path generated from the flow machines, in the same lists the
 * model-based tests replay through the views, with the words a person reads for each step and
 * what the browser replay needs to do it in the running product. `npm run paths` writes these as
 * `docs/paths/<flow>.md`; `npm run test:paths` replays them in Chromium against the real server.
 * Both read this module, so the path files say exactly what the replay does.
 *
 * The words come from the descriptions beside the models (`tests/model/*.events.ts`,
 * `sign-up.descriptions.ts`). What is added here is only what the running product needs besides
 * the model: how to start each situation, the few inputs that differ from the model's fixtures
 * (a wrong password when the server must refuse it, the code from the SMS), and which answers
 * come from request interception and why.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject } from 'xstate'
import { signInScreenMachine } from '#machines/auth/sign-in-screen.machine.ts'
import { registerPersonnelMachine } from '#machines/personnel/register-personnel.machine.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import { signUpMachine } from '#machines/sign-up/sign-up.machine.ts'
import {
  describePhoneEvent,
  type PhoneModelEvent,
  eventDescriptions as personnelEventDescriptions,
  phoneStateDescriptions as personnelPhoneStateDescriptions,
  stateDescriptions as personnelStateDescriptions,
} from '#tests/model/register-personnel.events.ts'
import {
  phoneVerificationPlan,
  registerPersonnelPlan,
} from '#tests/model/register-personnel.paths.ts'
import {
  type SignInScreenModelEvent,
  eventDescriptions as signInEventDescriptions,
  stateDescriptions as signInStateDescriptions,
} from '#tests/model/sign-in-screen.events.ts'
import { signInScreenPaths } from '#tests/model/sign-in-screen.paths.ts'
import {
  describePhoneVerificationEvent,
  describeSignUpEvent,
  phoneVerificationStateDescriptions,
  signUpStateDescriptions,
} from '#tests/model/sign-up.descriptions.ts'
import {
  coverageOf,
  modelStateNodes,
  phoneVerificationViewModel,
  selectPaths,
  signUpViewModel,
} from '#tests/model/sign-up.paths.ts'

/** The flows that get a path file: one per screen a person goes through. */
export type FlowId = 'sign-in-screen' | 'sign-up' | 'register-personnel'

/** The machines the paths walk; the phone verification runs inside two flows. */
export type MachineKey = 'signInScreen' | 'signUp' | 'phoneVerification' | 'registerPersonnel'

/** The lists of paths: a machine as one screen drives it. */
export type SectionKey =
  | 'signInScreen'
  | 'signUp'
  | 'signUpPhone'
  | 'registerPersonnel'
  | 'personnelPhone'

/** Which name the browser opens the app under (see tests/paths/support/hosts.ts). */
export type Host = 'local' | 'remote'

/** One step of a path: the event, and the state the machine is in after it. */
export type QaStep = { event: EventObject; state: AnyMachineSnapshot }

/** What the running product needs for one step besides the model's words. */
export type StepPlan = {
  /** Words for the path file where the running product needs other input than the model's. */
  text?: string
  /** What the running product needs beforehand, in a person's words. */
  note?: string
  /** Why this step's answer comes from request interception rather than the server. */
  intercepted?: string
  /** What the screen shows instead of the machine's state, where the route moves on. */
  seen?: string
}

/** A generated path with everything the path file and the replay need. */
export type QaPath = {
  flow: FlowId
  section: SectionKey
  machine: MachineKey
  /** 1-based, across the sections of its flow (the screenshot is `<flow>-<number>.png`). */
  number: number
  scenario: string
  /** `steps[0]` is where the path starts (its event is the machine's start). */
  steps: QaStep[]
  host: Host
  start: string
  /** Request interception the whole path needs (a third-party script), and why. */
  intercepted?: string
  plans: StepPlan[]
}

/** A machine as one screen drives it, with its paths and its words. */
export type QaSection = {
  key: SectionKey
  machine: MachineKey
  title: string
  intro: string
  paths: QaPath[]
  describeState: (nodeId: string) => string | undefined
  describeEvent: (event: EventObject) => string
  /**
   * What else the screen shows after step `i` that the state's words leave out (a banner, an
   * alert, a field's error): only from what the graph tells states apart by, and the events.
   */
  extras?: (path: QaPath, i: number) => string[]
}

/** One path file. */
export type QaFlow = { id: FlowId; title: string; intro: string; sections: QaSection[] }

/** The machine definitions by key. */
export const MACHINES: Record<MachineKey, AnyStateMachine> = {
  signInScreen: signInScreenMachine,
  signUp: signUpMachine,
  phoneVerification: phoneVerificationMachine,
  registerPersonnel: registerPersonnelMachine,
}

/** Human names of the machines, for headings and the coverage summary. */
export const MACHINE_TITLES: Record<MachineKey, string> = {
  signInScreen: 'Sign-in screen',
  signUp: 'Sign-up wizard',
  phoneVerification: 'Phone verification',
  registerPersonnel: 'Personnel registration',
}

/** Values the replay types where the model's fixtures would not get the real answer. */
export const REPLAY_INPUTS = {
  /** A password the server refuses for the demo account. */
  wrongPassword: 'Wrong-Pass-2026',
  /** The seeded account whose password the reset paths change (the demo Admin stays as seeded). */
  resetAccount: 'staff@example.com',
  /** An address that already has an account: the availability checks refuse it. */
  takenEmail: 'demo@example.com',
  /** A promo code the server does not know. */
  unknownPromo: 'NOSUCHCODE',
  /** A card the test payment gateway declines. */
  declinedCard: '4000 0000 0000 0002',
} as const

// ---------------------------------------------------------------------------------------------
// Reading a path

/** The actor id of a done or error event (`xstate.done.actor.signIn` → `signIn`). */
export function answerActor(event: EventObject): string | undefined {
  return /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1]
}

/** The first answer of `actor` after step `i`, if the path has one. */
export function nextAnswer(path: QaPath, i: number, actor: string): EventObject | undefined {
  return path.steps.slice(i + 1).find((step) => answerActor(step.event) === actor)?.event
}

/** Whether the answer of `actor` after step `i` is a failure (or a phone not verified). */
export function nextAnswerFails(path: QaPath, i: number, actor: string): boolean {
  const answer = nextAnswer(path, i, actor) as (EventObject & { output?: unknown }) | undefined
  if (!answer) return false
  if (answer.type.startsWith('xstate.error.')) return true
  const output = answer.output as { verified?: boolean } | undefined
  return output?.verified === false
}

function toValue(path: string[]): unknown {
  return path.reduceRight<unknown>((inner, key) => (inner === null ? key : { [key]: inner }), null)
}

/** The state nodes a snapshot is in, outermost first. */
export function activeNodes(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
): AnyStateNode[] {
  return modelStateNodes(machine)
    .filter((node) => snapshot.matches(toValue(node.path) as never))
    .sort((a, b) => a.path.length - b.path.length)
}

/** The innermost state node a snapshot is in. */
export function leafNode(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): AnyStateNode {
  const nodes = activeNodes(machine, snapshot).filter(
    (node) => node.type === 'atomic' || node.type === 'final',
  )
  const [leaf] = nodes
  if (!leaf || nodes.length !== 1) {
    throw new Error(`no single leaf state for ${JSON.stringify(snapshot.value)}`)
  }
  return leaf
}

/** The promise actors the leaf state of a snapshot calls (its busy calls). */
export function invokedActors(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): string[] {
  return leafNode(machine, snapshot)
    .invoke.map((definition) => definition.id)
    .filter((id) => !['phoneVerification'].includes(id))
}

// ---------------------------------------------------------------------------------------------
// The sign-in screen

const SIGN_IN_CAPTCHA = 'Open /signin right after a personnel sign-up, captcha on'
const SIGN_IN_RESET_LINK = 'Open the reset link from the e-mail'
const SIGN_IN_USED_LINK = 'Open a reset link this browser already used'

function signInStart(path: QaPath): string {
  switch (path.scenario) {
    case SIGN_IN_CAPTCHA:
      return (
        'Open /signin under a host name other than this machine, where the human check (hCaptcha) ' +
        'is on, right after a personnel registration finished (it leaves the one-time success ' +
        'banner). The replay opens the app as glow.test and sets the banner flag the registration ' +
        'leaves (sessionStorage personnelSignedUp).'
      )
    case SIGN_IN_RESET_LINK:
      return path.steps.some((step) => step.event.type === 'xstate.error.actor.resetPassword')
        ? `On this machine, ask for a password reset for ${REPLAY_INPUTS.resetAccount} (Forgot Password), use the e-mailed link once in another browser, then open the same link here: the server has spent it. The replay spends it through the API.`
        : `On this machine, ask for a password reset for ${REPLAY_INPUTS.resetAccount} (Forgot Password) and open the link from the e-mail (the development outbox is at /api/dev/outbox). The path changes that account's password.`
    case SIGN_IN_USED_LINK:
      return `On this machine, open a reset link that this browser already used for a reset. The replay asks for a link for ${REPLAY_INPUTS.resetAccount} and records it as used, as Reset and Sign In does (localStorage lastResetCode).`
    default:
      throw new Error(`no start for the sign-in scenario "${path.scenario}"`)
  }
}

/** The sign-in view's banners and the human check, as they change. */
function signInExtras(path: QaPath, i: number): string[] {
  const now = (path.steps[i] as QaStep).state.context
  const then = path.steps[i - 1]?.state.context
  const extras: string[] = []
  if (now.notice && now.notice !== then?.notice) extras.push(`the green banner "${now.notice}"`)
  if (now.captchaError && now.captchaError !== then?.captchaError) {
    extras.push(`"${now.captchaError}" under Human check`)
  }
  if (now.captchaToken && !then?.captchaToken) extras.push('the human check ticked')
  if (!now.captchaToken && then?.captchaToken) extras.push('the human check no longer ticked')
  return extras
}

function signInStep(path: QaPath, i: number): StepPlan {
  const { event } = path.steps[i] as QaStep
  if (event.type === 'signInForm.submit' && nextAnswerFails(path, i, 'signIn')) {
    return {
      text: `Type demo@example.com and a wrong password (${REPLAY_INPUTS.wrongPassword}), tick Remember me, click Sign In`,
    }
  }
  if (event.type === 'captcha.expired') {
    return {
      note: 'While Sign In is busy: the replay holds the sign-in request in the browser until the stand-in widget has expired, then lets it through to the server.',
    }
  }
  if (event.type === 'xstate.error.actor.requestPasswordReset') {
    return {
      note: 'The app runs under glow.test, which is not this server’s PUBLIC_URL or one of its ALLOWED_ORIGINS, so the server refuses to send a link that points there.',
    }
  }
  if (event.type === 'xstate.after.outdatedNotice.signInScreen.signIn.editing.linkOutdated') {
    return {}
  }
  return {}
}

// ---------------------------------------------------------------------------------------------
// The phone verification (step 1 of the wizard, and the personnel registration form)

const RESEND_EVENT = 'xstate.after.resendCooldown.phoneVerification.codeSent.coolingDown'

/**
 * Whether the 30-second wait is already over in the browser at step `i`: the replay moved the
 * browser's clock on after the last code went out, so entering the wait again ends it at once.
 * The model, which runs no clock, still calls that moment the wait.
 */
export function resendWaitIsOver(path: QaPath, i: number): boolean {
  let over = false
  for (let k = 1; k <= i; k++) {
    const type = (path.steps[k] as QaStep).event.type
    if (type === RESEND_EVENT) over = true
    if (type === 'xstate.done.actor.sendCode') over = false
  }
  return over
}

/** The phone verification's steps, with the words of the screen it runs on. */
function phoneStep(describeState: (id: string) => string | undefined) {
  return (path: QaPath, i: number): StepPlan => {
    const plan = phoneStepPlan(path, i)
    const { state } = path.steps[i] as QaStep
    if (state.matches({ codeSent: 'coolingDown' }) && resendWaitIsOver(path, i)) {
      const ready = describeState('phoneVerification.codeSent.resendReady') ?? ''
      return { ...plan, seen: `${ready} (the 30 seconds are already over)` }
    }
    return plan
  }
}

function phoneStepPlan(path: QaPath, i: number): StepPlan {
  const step = path.steps[i] as QaStep
  const previous = path.steps[i - 1]
  const event = step.event as PhoneModelEvent
  if (event.type === 'code.change' && event.code.length >= 6) {
    return nextAnswerFails(path, i, 'verifyCode')
      ? {
          text: 'Type a wrong code (the code from the SMS with its last digit changed) as Confirmation code',
        }
      : { text: 'Type the 6-digit code from the SMS as Confirmation code' }
  }
  if (event.type === RESEND_EVENT) {
    return {
      note: "The replay moves the browser's clock on by 30 seconds instead of waiting; the server's clock keeps its own time.",
    }
  }
  if (event.type === 'xstate.error.actor.sendCode') {
    const resend = previous?.state.context.authyId !== null
    return {
      note: resend
        ? "The server's 30-second gap between two codes to one phone is still running (the replay moved only the browser's clock on), so it refuses the new code."
        : 'A code went to this phone less than 30 seconds ago (for example from another tab), so the server refuses another one. The replay asks for that code through the API just before.',
    }
  }
  if (event.type === 'xstate.done.actor.verifyCode' && !event.output.verified) {
    return {
      intercepted:
        'the server refuses a wrong code with an error (another path replays that); an answer that the code is not verified, without an error, is what this step checks, and only interception gives it.',
    }
  }
  return {}
}

// ---------------------------------------------------------------------------------------------
// The sign-up wizard

function signUpStart(path: QaPath): string {
  const takenPerson = path.steps.some(
    (step, i) =>
      step.event.type === 'xstate.error.actor.checkAvailability' &&
      path.steps[i - 1]?.state.matches({ clientDetails: 'checkingAvailability' }),
  )
  const person = takenPerson
    ? ` Step 1 was filled in with the e-mail ${REPLAY_INPUTS.takenEmail}, which already has an account.`
    : ''
  const reload =
    ' The replay verifies the phone through the API (and pays through the API for step 4) and writes the progress the wizard keeps in sessionStorage (signUpProgress), as the wizard itself does.'
  switch (path.scenario) {
    case 'new sign-up':
      return 'Open /signup under a host name other than this machine (glow.test in the replay), so that nothing is pre-filled (test mode is for this machine only).'
    case 'reloaded on step 2':
      return `Open /signup (glow.test), fill in step 1, verify the phone, Continue, then reload the page on step 2.${person}${reload}`
    case 'reloaded on step 3':
      return `Open /signup (glow.test), go through steps 1 and 2, then reload the page on step 3.${person}${reload}`
    case 'reloaded on step 4':
      return `Open /signup (glow.test), go through steps 1 to 3 (paying with 4242 4242 4242 4242), then reload the page on step 4.${person}${reload}`
    case 'reloaded on step 3 with Nextech':
      return `Open /signup (glow.test), go through step 1 and step 2 with Health record Nextech, then reload the page on step 3: the Nextech password is never kept, so step 2 is no longer complete.${reload}`
    default:
      throw new Error(`no start for the sign-up scenario "${path.scenario}"`)
  }
}

/** The wizard's alert, the applied promo code, the verified phone, the payment, the signature. */
function signUpExtras(path: QaPath, i: number): string[] {
  const step = path.steps[i] as QaStep
  const now = step.state.context
  const then = path.steps[i - 1]?.state.context
  const extras: string[] = []
  if (now.alert && now.alert.message !== then?.alert?.message) {
    extras.push(
      now.alert.kind === 'warning'
        ? `the "Payment not completed" box with "${now.alert.message}"`
        : `the alert "${now.alert.message}"`,
    )
  }
  if (!now.alert && then?.alert) extras.push('no alert any more')
  if (now.coupon && now.coupon.id !== then?.coupon?.id) {
    extras.push(`"Promo code ${now.coupon.id} applied" and the deduction in the Price summary`)
  }
  if (now.verifiedPhone && !then?.verifiedPhone) extras.push('"Phone number verified"')
  if (now.stripeId && then && !then.stripeId) {
    extras.push('on step 3 "Paid with the card ending in 4242", card and address locked')
  }
  const signed = step.event as EventObject & { signer_name?: string }
  if (signed.type === 'agreement.sign')
    extras.push(`"Signed by ${signed.signer_name} on" today's date`)
  if (step.event.type === 'xstate.error.actor.lookupCoupon') {
    extras.push('"Invalid promo code" under Promo code')
  }
  return extras
}

function signUpStep(path: QaPath, i: number): StepPlan {
  const step = path.steps[i] as QaStep
  const before = path.steps[i - 1]?.state
  const event = step.event as EventObject & {
    values?: { e_record?: string; practice_email?: string }
    error?: Error
    code?: string
  }
  switch (event.type) {
    case 'clientDetails.continue': {
      if (before && before.context.verifiedPhone === null) {
        return {
          text: 'Fill in step 1 without verifying the phone; Continue stays disabled. Force it: in the developer tools remove the disabled attribute of Continue, then click it',
        }
      }
      // A reload never keeps the passwords: step 1 of a restored wizard needs them again.
      if (path.scenario.startsWith('reloaded')) {
        return {
          text: 'Type Password and Confirm password again (Glow!Pass123; a reload never keeps them), click Continue on step 1',
        }
      }
      return {}
    }
    case 'accountSetup.continue': {
      if (!nextAnswerFails(path, i, 'checkAvailability')) return {}
      const nextech = event.values?.e_record === 'nextech'
      return {
        text: `Fill in step 2${nextech ? ' with Health record Nextech and its Client ID, Username, Nextech password and NX Practice ID' : ''}, with Practice email ${REPLAY_INPUTS.takenEmail} (it already has an account), click Continue`,
      }
    }
    case 'promo.apply': {
      const next = path.steps[i + 1]?.event
      if (next?.type === 'xstate.error.actor.lookupCoupon') {
        return {
          text: `Type the promo code ${REPLAY_INPUTS.unknownPromo} (the server does not know it), click Apply`,
        }
      }
      return {}
    }
    case 'billing.continue': {
      if (before?.context.stripeId)
        return {
          text: 'Click Continue (card, billing address and plan are locked: the payment is done)',
        }
      const answer = nextAnswer(path, i, 'lockPayment') as { error?: Error } | undefined
      if (answer?.error && answer.error.name !== 'TokenisationError') {
        return {
          text: `Fill in the card ${REPLAY_INPUTS.declinedCard} (the test gateway declines it), 12/2030, CVV 123, the cardholder and billing address, tick both agreements, click Continue`,
        }
      }
      return {}
    }
    case 'xstate.error.actor.lockPayment':
      return event.error?.name === 'TokenisationError'
        ? {
            intercepted:
              'the card form already refuses every number the tokeniser would refuse, so the tokeniser’s refusal ("Your card number is incorrect.") is given by interception.',
          }
        : { note: 'The test payment gateway declines 4000 0000 0000 0002, as Stripe does.' }
    case 'xstate.error.actor.loadPlans':
      return {
        intercepted:
          'a server error (503 Service Unavailable) cannot be asked of the real server; the plans request and its automatic retries get that answer.',
      }
    case 'xstate.error.actor.submitSignUp':
      return {
        intercepted:
          'a server error (503 Service Unavailable) cannot be asked of the real server; the registration request gets that answer.',
      }
    case 'xstate.error.actor.checkAvailability':
      return {
        note: `${REPLAY_INPUTS.takenEmail} already has an account, so the server answers "Email is already taken."`,
      }
    case 'step.back':
      return before?.matches('clientDetails')
        ? { seen: 'You see: the Sign In page (Back to Sign In leaves the wizard)' }
        : {}
    default:
      return {}
  }
}

// ---------------------------------------------------------------------------------------------
// The personnel registration

function personnelStart(path: QaPath): string {
  if (path.steps.some((step) => step.event.type === 'xstate.error.actor.loadInvitation')) {
    return 'Open an invitation link that is not valid (unknown, used, revoked or expired): the replay opens /signup/personnel/ followed by a made-up id.'
  }
  return 'As the demo Admin, invite a new person (Personnel, Invite: Dr. Jordan Lee, Provider, with an e-mail that has no account yet) and open the link from the e-mail (the development outbox is at /api/dev/outbox). The replay invites through the API.'
}

function personnelStep(path: QaPath, i: number): StepPlan {
  const { event } = path.steps[i] as QaStep
  if (event.type === 'xstate.error.actor.registerPersonnel') {
    return {
      note: "Meanwhile someone signed up a new practice with the invited e-mail, so the server refuses a second account with it. The replay does that sign-up through the API while Submit's request is held.",
    }
  }
  if (event.type === 'xstate.done.actor.phoneVerification') {
    return {
      note: 'Use a phone number that has had no code in the last 30 seconds; the code arrives by SMS (the development outbox).',
    }
  }
  return {}
}

// ---------------------------------------------------------------------------------------------
// Building the flows

type RawPath = { scenario: string; steps: QaStep[] }

function toSteps(path: {
  steps: Array<{ event: EventObject; state: AnyMachineSnapshot }>
}): QaStep[] {
  return path.steps.map((step) => ({ event: step.event, state: step.state }))
}

function section(
  flow: FlowId,
  options: Omit<QaSection, 'paths'> & {
    raw: RawPath[]
    host: (path: QaPath) => Host
    start: (path: QaPath) => string
    step: (path: QaPath, i: number) => StepPlan
    intercepted?: (path: QaPath) => string | undefined
  },
  first: number,
): QaSection {
  const paths = options.raw.map((raw, index): QaPath => {
    const path: QaPath = {
      flow,
      section: options.key,
      machine: options.machine,
      number: first + index,
      scenario: raw.scenario,
      steps: raw.steps,
      host: 'local',
      start: '',
      plans: [],
    }
    path.host = options.host(path)
    path.start = options.start(path)
    const intercepted = options.intercepted?.(path)
    if (intercepted) path.intercepted = intercepted
    path.plans = path.steps.map((_, i) => (i === 0 ? {} : options.step(path, i)))
    return path
  })
  const {
    raw: _raw,
    host: _host,
    start: _start,
    step: _step,
    intercepted: _intercepted,
    ...rest
  } = options
  return { ...rest, paths }
}

function signInFlow(): QaFlow {
  const raw = signInScreenPaths().map((p) => ({
    scenario: p.scenario.name,
    steps: toSteps(p.path),
  }))
  return {
    id: 'sign-in-screen',
    title: 'Sign-in screen',
    intro:
      'The screen at /signin and /reset: Sign In, Forgot Password and Reset Password (spec sections 2, 5 and 8). The demo Admin is demo@example.com / DemoPass123.',
    sections: [
      section(
        'sign-in-screen',
        {
          key: 'signInScreen',
          machine: 'signInScreen',
          title: 'Sign-in screen',
          intro: 'Paths of the sign-in screen machine, from its three ways to open.',
          raw,
          describeState: (id) => signInStateDescriptions[id],
          describeEvent: (event) =>
            signInEventDescriptions[event.type as SignInScreenModelEvent['type']] ?? '',
          extras: signInExtras,
          host: (path) => (path.scenario === SIGN_IN_CAPTCHA ? 'remote' : 'local'),
          start: signInStart,
          step: signInStep,
          intercepted: (path) =>
            path.scenario === SIGN_IN_CAPTCHA
              ? "hCaptcha's widget script is replaced by a stand-in with the same programming interface: hCaptcha cannot be reached from the test network, and the stand-in can be ticked and made to expire on demand"
              : undefined,
        },
        1,
      ),
    ],
  }
}

function signUpFlow(): QaFlow {
  const wizard = selectPaths(signUpViewModel).map((p) => ({
    scenario: p.scenario,
    steps: toSteps(p.path),
  }))
  const phone = selectPaths(phoneVerificationViewModel).map((p) => ({
    scenario: p.scenario,
    steps: toSteps(p.path),
  }))
  const wizardSection = section(
    'sign-up',
    {
      key: 'signUp',
      machine: 'signUp',
      title: 'Sign-up wizard',
      intro:
        'Paths of the wizard machine: its four steps, the checks and calls of each, and progress restored after a reload.',
      raw: wizard,
      describeState: (id) => signUpStateDescriptions[id],
      describeEvent: describeSignUpEvent,
      extras: signUpExtras,
      host: () => 'remote',
      start: signUpStart,
      step: signUpStep,
    },
    1,
  )
  const phoneSection = section(
    'sign-up',
    {
      key: 'signUpPhone',
      machine: 'phoneVerification',
      title: 'Phone verification on step 1',
      intro:
        'Paths of the phone verification machine as step 1 of the wizard runs it: Get Code, the code from the SMS, Verify Code, the 30-second wait for a new code.',
      raw: phone.map((p) => ({
        ...p,
        scenario: p.scenario === 'verified before' ? 'phone verified before a reload' : 'new phone',
      })),
      describeState: (id) => phoneVerificationStateDescriptions[id],
      describeEvent: describePhoneVerificationEvent,
      host: () => 'remote',
      start: (path) =>
        path.scenario === 'new phone'
          ? 'Open /signup under a host name other than this machine (glow.test in the replay), with a phone number that has had no code in the last 30 seconds.'
          : 'Open /signup (glow.test), fill in step 1 and verify the phone, then reload the page. The replay verifies the phone through the API and writes the progress the wizard keeps in sessionStorage (signUpProgress).',
      step: phoneStep((id) => phoneVerificationStateDescriptions[id]),
    },
    wizardSection.paths.length + 1,
  )
  return {
    id: 'sign-up',
    title: 'Sign-up wizard',
    intro:
      'The four-step wizard at /signup (spec sections 2 and 4) and the phone verification on its step 1. Each run of a path needs an e-mail and phone numbers that have no account yet; the replay makes new ones for every path (the words below show the model’s examples). Cards: 4242 4242 4242 4242 is paid, 4000 0000 0000 0002 is declined (the test payment gateway).',
    sections: [wizardSection, phoneSection],
  }
}

function personnelFlow(): QaFlow {
  const registration = registerPersonnelPlan().paths.map((p) => ({
    scenario: 'Open the invitation link',
    steps: toSteps(p.path),
  }))
  const phone = phoneVerificationPlan().paths.map((p) => ({
    scenario: 'Open the invitation link',
    steps: toSteps(p.path),
  }))
  const registrationSection = section(
    'register-personnel',
    {
      key: 'registerPersonnel',
      machine: 'registerPersonnel',
      title: 'Personnel registration',
      intro:
        'Paths of the registration machine: the invitation behind the link, the verified phone, Submit and its answers.',
      raw: registration,
      describeState: (id) => personnelStateDescriptions[id],
      describeEvent: (event) =>
        personnelEventDescriptions[event.type as keyof typeof personnelEventDescriptions] ?? '',
      host: () => 'local',
      start: personnelStart,
      step: personnelStep,
    },
    1,
  )
  const phoneSection = section(
    'register-personnel',
    {
      key: 'personnelPhone',
      machine: 'phoneVerification',
      title: 'Phone verification on the registration form',
      intro:
        'Paths of the phone verification machine as the registration form runs it (the same machine as step 1 of the sign-up wizard).',
      raw: phone,
      describeState: (id) => personnelPhoneStateDescriptions[id],
      describeEvent: (event) => describePhoneEvent(event as PhoneModelEvent),
      host: () => 'local',
      start: personnelStart,
      step: phoneStep((id) => personnelPhoneStateDescriptions[id]),
    },
    registrationSection.paths.length + 1,
  )
  return {
    id: 'register-personnel',
    title: 'Personnel registration',
    intro:
      'Registration by invitation at /signup/personnel/{id} (spec sections 2 and 4): the form pre-filled from the invitation, the phone verified by an SMS code, Submit.',
    sections: [registrationSection, phoneSection],
  }
}

const BUILDERS: Record<FlowId, () => QaFlow> = {
  'sign-in-screen': signInFlow,
  'sign-up': signUpFlow,
  'register-personnel': personnelFlow,
}

/** The flows in the order of their files. */
export const FLOW_IDS: FlowId[] = ['sign-in-screen', 'sign-up', 'register-personnel']

const cache = new Map<FlowId, QaFlow>()

/** One flow with its generated paths (walking the machines takes a moment; kept once made). */
export function qaFlow(id: FlowId): QaFlow {
  let flow = cache.get(id)
  if (!flow) {
    flow = BUILDERS[id]()
    cache.set(id, flow)
  }
  return flow
}

/** Every flow with its generated paths. */
export function qaFlows(): QaFlow[] {
  return FLOW_IDS.map(qaFlow)
}

/** The test title of a path in the browser replay: `<flow> <number>: <scenario>`. */
export function pathTitle(path: QaPath): string {
  return `${path.flow} ${path.number}: ${path.scenario}`
}

/** What a path reaches of its machine. */
export function pathCoverage(path: QaPath): { states: Set<string>; transitions: Set<string> } {
  const { steps } = path
  const last = steps.at(-1) as QaStep
  return coverageOf(MACHINES[path.machine], { state: last.state, steps, weight: steps.length })
}
