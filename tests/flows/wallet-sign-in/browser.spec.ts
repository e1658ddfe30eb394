/**
 * The wallet sign-in's Playwright driver: its QA paths (docs/paths/wallet-sign-in.md) replayed in
 * Chromium against the real server, on the wallet page (/wallet/{practiceId}, wallet.html). Each
 * path gets a patient of its own in the demo practice (codes and locks are counted per contact),
 * the codes come from the development outbox, the browser's clock is moved on for the wait before
 * a new code and for the lock's end, and only an expired code and a lost connection are answered
 * by interception.
 */
import type { APIRequestContext } from '@playwright/test'
import { WALLET_LOCK_MINUTES, WALLET_MAX_CODE_TRIES } from '#domain/wallet.ts'
import { WALLET_SIGN_IN_TEXT } from '#machines/wallet-sign-in/messages.ts'
import {
  apiSignIn,
  createPatient,
  expect,
  test,
  waitForMessage,
} from '#tests/e2e/support/fixtures.ts'
import { answerActor, leafNode, type QaStep } from '#tests/mbt/index.ts'
import { LOCAL_ORIGIN } from '#tests/paths/support/hosts.ts'
import { type ReplayContext, type Replayer, replayFlow } from '#tests/paths/support/replay.ts'
import {
  walletFixtures as f,
  LOCK_WAIT_EVENT,
  nextSessionAnswerIs,
  RESEND_WAIT_EVENT,
  type WalletSignInModelEvent,
  walletErrors,
  walletSignInFlow,
  walletSignInModel,
} from './model.ts'

// The wallet's service worker would fetch on the page's behalf, out of the replay's sight.
test.use({ serviceWorkers: 'block' })

/** A number unique to this run, so that every path's patient has its own e-mail. */
const RUN = Date.now() % 1_000_000

type WalletContext = ReplayContext & {
  /** The path's own patient's e-mail: what the replay types for the model's contact. */
  email: string
  /** The newest code sent to it, from the outbox. */
  code: string | null
  /** When the last code was asked for (outbox messages before it are older codes). */
  askedAt: Date
  /**
   * What the replay typed in each field. A modelled state's context is one representative of the
   * states the graph does not tell apart (typed text is left out of the signature), so the screen
   * is checked against what was really typed.
   */
  typedContact: string
  typedCode: string
}

/** What the replay types for a contact of the model. */
function typed(context: WalletContext, contact: string): string {
  return contact === f.contact ? context.email : contact
}

/** The newest code e-mailed to the path's patient since it was asked for. */
async function codeFromOutbox(context: WalletContext): Promise<string> {
  const message = await waitForMessage(context.request, 'email', context.email, {
    after: context.askedAt,
  })
  const code = /\b(\d{6})\b/.exec(message.text ?? '')?.[1]
  expect(code, message.text).toBeTruthy()
  return code ?? ''
}

/** A 6-digit code that is not `code` (each digit moved on by one). */
function notThe(code: string): string {
  return code.replace(/\d/g, (d) => String((Number(d) + 1) % 10))
}

/** Spends `count` wrong codes for the patient through the API, as other tries would have. */
async function spendWrongCodes(request: APIRequestContext, context: WalletContext, count: number) {
  for (let i = 0; i < count; i++) {
    const answer = await request.post(`/api/wallet/${f.practiceId}/session`, {
      data: { contact: context.email, code: notThe(context.code ?? '000000') },
    })
    expect(answer.status(), await answer.text()).toBe(401)
  }
}

/** The wrong codes the path has already tried in the screen before step `i`. */
function wrongTriesBefore(context: WalletContext, i: number): number {
  return context.path.steps
    .slice(1, i)
    .filter(
      (step) =>
        (step.event as { error?: unknown }).error === walletErrors.wrong &&
        step.event.type === 'xstate.error.actor.openWalletSession',
    ).length
}

/** An answer of the server's shape, for the steps the path file marks as intercepted. */
const EXPIRED = {
  status: 410,
  body: {
    error: {
      status: 410,
      name: 'GoneError',
      message: 'This code has expired. Please ask for a new code.',
      details: { reason: 'expired' },
    },
  },
}
/** What a proxy answers when the server cannot be reached: no body. */
const UNREACHABLE = { status: 503, body: null }

const replayer: Replayer<WalletContext> = {
  async open(context) {
    const { page, request, path } = context
    const admin = await apiSignIn(request)
    context.email = `wallet.path${path.number}.${RUN}@example.com`
    await createPatient(request, admin, {
      first_name: 'Jane',
      last_name: `Wallet${path.number}x${RUN}`,
      email: context.email,
    })
    await page.clock.install()
    await page.goto(`${LOCAL_ORIGIN}/wallet/${f.practiceId}`)
  },

  async perform(context, i) {
    const { page, path, gate, request } = context
    const step = path.steps[i] as QaStep
    const event = step.event as WalletSignInModelEvent
    const button = (name: string) => page.getByRole('button', { name, exact: true })
    if (answerActor(event)) {
      if (event.type === 'xstate.error.actor.openWalletSession') {
        if (event.error === walletErrors.expired) return gate.release('openWalletSession', EXPIRED)
        if (event.error === walletErrors.verifyOffline) {
          return gate.release('openWalletSession', UNREACHABLE)
        }
      }
      if (event.type === 'xstate.error.actor.sendWalletCode') {
        return gate.release('sendWalletCode', UNREACHABLE)
      }
      if (event.type === 'xstate.done.actor.sendWalletCode') {
        context.askedAt = new Date()
        await gate.release('sendWalletCode')
        context.code = await codeFromOutbox(context)
        // A new code empties the code field.
        context.typedCode = ''
        return
      }
      return gate.release(answerActor(event) ?? '')
    }
    switch (event.type) {
      case 'contact.change':
        // Emptied first: typing what the field already holds is still typing (after a failure).
        context.typedContact = typed(context, event.value)
        await page.getByLabel('E-mail or mobile phone').fill('')
        await page.getByLabel('E-mail or mobile phone').fill(context.typedContact)
        return
      case 'contact.submit':
        return button('Send me a code').click()
      case 'contact.edit':
        return button('Use a different e-mail or phone').click()
      case 'code.change': {
        const real = context.code ?? ''
        const wrong =
          nextSessionAnswerIs(path, i, walletErrors.wrong) ||
          nextSessionAnswerIs(path, i, walletErrors.locked)
        context.typedCode = event.value === f.code ? (wrong ? notThe(real) : real) : event.value
        await page.getByLabel('6-digit code').fill('')
        await page.getByLabel('6-digit code').fill(context.typedCode)
        return
      }
      case 'code.submit':
        if (nextSessionAnswerIs(path, i, walletErrors.locked)) {
          // This try is the one that locks: the tries before it were spent elsewhere.
          await spendWrongCodes(
            request,
            context,
            WALLET_MAX_CODE_TRIES - 1 - wrongTriesBefore(context, i),
          )
        }
        return button('Sign in').click()
      case 'code.resend':
        return button('Send a new code').click()
      case 'retry':
        return button('Try again').click()
      case RESEND_WAIT_EVENT:
        await expect(page.getByText(/^Send a new code in \d+ s$/)).toBeVisible()
        await page.clock.fastForward(30_000)
        return
      case LOCK_WAIT_EVENT:
        await page.clock.fastForward(WALLET_LOCK_MINUTES * 60_000)
        return
      default:
        throw new Error(`no action for ${event.type}`)
    }
  },

  async expectStep(context, i) {
    const { page, path, gate } = context
    const { state } = path.steps[i] as QaStep
    const leaf = leafNode(walletSignInModel.machine, state).id
    const { contactError, codeError, error, canResend } = state.context
    const button = (name: string) => page.getByRole('button', { name, exact: true })
    const alerts = page.getByRole('alert')
    const contactField = page.getByLabel('E-mail or mobile phone')
    const codeField = page.getByLabel('6-digit code')
    const heading = page.getByRole('heading', { level: 1, name: 'Sign in to your wallet' })

    const expectContactForm = async () => {
      await expect(heading).toBeVisible()
      await expect(contactField).toHaveValue(context.typedContact)
      if (contactError) await expect(alerts.filter({ hasText: contactError })).toBeVisible()
      if (!contactError && !error) await expect(alerts).toHaveCount(0)
    }
    const expectCodeForm = async () => {
      await expect(page.getByText(WALLET_SIGN_IN_TEXT.codeSentTo(context.email))).toBeVisible()
      await expect(codeField).toHaveValue(context.typedCode)
      await expect(codeField).toHaveAttribute('autocomplete', 'one-time-code')
      await expect(codeField).toHaveAttribute('inputmode', 'numeric')
      await expect(button('Use a different e-mail or phone')).toBeVisible()
      if (canResend) await expect(button('Send a new code')).toBeVisible()
      else await expect(page.getByText(/^Send a new code in \d+ s$/)).toBeVisible()
      if (codeError) await expect(alerts.filter({ hasText: codeError })).toBeVisible()
      if (!codeError && !error) await expect(alerts).toHaveCount(0)
    }

    switch (leaf) {
      case 'walletSignIn.enteringContact':
        await expectContactForm()
        await expect(button('Send me a code')).toBeEnabled()
        return
      case 'walletSignIn.sendingCode':
        await gate.held('sendWalletCode')
        await expectContactForm()
        await expect(button('Send me a code')).toBeDisabled()
        return
      case 'walletSignIn.sendFailed':
        await expect(alerts.filter({ hasText: WALLET_SIGN_IN_TEXT.offline })).toBeVisible()
        await expectContactForm()
        await expect(button('Try again')).toBeFocused()
        return
      case 'walletSignIn.codeSent.entering':
        await expectCodeForm()
        await expect(button('Sign in')).toBeEnabled()
        return
      case 'walletSignIn.codeSent.verifying':
        await gate.held('openWalletSession')
        await expectCodeForm()
        await expect(button('Sign in')).toBeDisabled()
        return
      case 'walletSignIn.codeSent.wrongCode':
        await expect(alerts.filter({ hasText: WALLET_SIGN_IN_TEXT.codeWrong })).toBeVisible()
        await expect(codeField).toHaveValue(context.typedCode)
        await expect(codeField).toBeFocused()
        return
      case 'walletSignIn.codeSent.verifyFailed':
        await expect(alerts.filter({ hasText: WALLET_SIGN_IN_TEXT.offline })).toBeVisible()
        await expect(codeField).toHaveValue(context.typedCode)
        await expect(button('Try again')).toBeFocused()
        return
      case 'walletSignIn.expiredCode':
        await expect(alerts.filter({ hasText: WALLET_SIGN_IN_TEXT.codeExpired })).toBeVisible()
        await expect(button('Send a new code')).toBeFocused()
        await expect(codeField).toHaveCount(0)
        return
      case 'walletSignIn.locked':
        await expect(alerts).toHaveText(/^Too many tries\. Try again after \d{1,2}:\d{2}/)
        await expect(button('Use a different e-mail or phone')).toBeFocused()
        await expect(codeField).toHaveCount(0)
        return
      case 'walletSignIn.signedIn':
        // The wallet takes over with the session: the practice's home screen.
        await expect(page.getByRole('button', { name: 'Log out' })).toBeVisible()
        await expect(page.getByRole('heading', { level: 1, name: f.practiceName })).toBeVisible()
        return
      default:
        throw new Error(`no screen check for ${leaf}`)
    }
  },
}

replayFlow(walletSignInFlow, { walletSignIn: replayer }, (base) => ({
  ...base,
  email: '',
  code: null,
  askedAt: new Date(0),
  typedContact: '',
  typedCode: '',
}))
