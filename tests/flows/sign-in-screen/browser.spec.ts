/**
 * The sign-in screen's Playwright driver: its QA paths (docs/paths/sign-in-screen.md), replayed in Chromium against
 * the real server. The reset paths use the seeded staff member, so the demo Admin keeps its
 * password for the other paths.
 */
import { LAST_RESET_CODE_KEY, PERSONNEL_SIGNED_UP_KEY } from '#src/lib/storage-keys.ts'
import { expect } from '#tests/e2e/support/fixtures.ts'
import { answerActor, leafNode, nextAnswerFails, type QaStep } from '#tests/mbt/index.ts'
import { resetLink, spendResetCode } from '#tests/paths/support/api.ts'
import { CAPTCHA_BUTTONS, standInCaptcha } from '#tests/paths/support/captcha.ts'
import { LOCAL_ORIGIN, REMOTE_ORIGIN } from '#tests/paths/support/hosts.ts'
import { type ReplayContext, type Replayer, replayFlow } from '#tests/paths/support/replay.ts'
import {
  fixtures,
  OUTDATED_NOTICE_EVENT,
  REPLAY_INPUTS,
  signInScreenFlow,
  signInScreenModel,
} from './model.ts'

// The seed's password of the staff member; the spent-link path sets it again when it spends one.
const STAFF_PASSWORD = 'StaffPass123'

const button = (context: ReplayContext, name: string) =>
  context.page.getByRole('button', { name, exact: true })

function origin(context: ReplayContext): string {
  return context.path.host === 'remote' ? REMOTE_ORIGIN : LOCAL_ORIGIN
}

const replayer: Replayer<ReplayContext> = {
  async open(context) {
    const { page, request, path } = context
    if (path.scenario.includes('captcha on')) {
      await standInCaptcha(page)
      await page.goto(`${origin(context)}/404`)
      await page.evaluate((key) => window.sessionStorage.setItem(key, '1'), PERSONNEL_SIGNED_UP_KEY)
      await page.goto(`${origin(context)}/signin`)
      return
    }
    const { link, code } = await resetLink(request, REPLAY_INPUTS.resetAccount, LOCAL_ORIGIN)
    if (path.scenario.includes('already used')) {
      await page.goto(`${LOCAL_ORIGIN}/404`)
      await page.evaluate(([key, value]) => window.localStorage.setItem(key, value), [
        LAST_RESET_CODE_KEY,
        code,
      ] as const)
    }
    await page.goto(link)
    if (
      !path.scenario.includes('already used') &&
      path.steps.some((s) => s.event.type === 'xstate.error.actor.resetPassword')
    ) {
      // A link is judged when it is opened, so the server's refusal needs the link
      // spent elsewhere while the form is on screen: another browser used it meanwhile.
      await expect(page.getByText('Please enter a new password!')).toBeVisible()
      await spendResetCode(request, code, STAFF_PASSWORD)
    }
  },

  async perform(context, i) {
    const { page, path, gate } = context
    const step = path.steps[i] as QaStep
    const before = (path.steps[i - 1] as QaStep).state
    const actor = answerActor(step.event)
    if (actor) {
      await gate.release(actor)
      return
    }
    switch (step.event.type) {
      case 'signInForm.submit': {
        const wrong = nextAnswerFails(path, i, 'signIn')
        await page.getByLabel(/^Email/).fill(fixtures.signIn.email)
        await page
          .getByLabel(/^Password/)
          .fill(wrong ? REPLAY_INPUTS.wrongPassword : fixtures.signIn.password)
        await page.getByRole('checkbox', { name: 'Remember me' }).check()
        await button(context, 'Sign In').click()
        return
      }
      case 'forgotForm.submit':
        await page.getByLabel(/^Email/).fill(fixtures.forgot.email)
        await button(context, 'Reset').click()
        return
      case 'resetForm.submit':
        await page.getByLabel(/^New password/).fill(fixtures.reset.password)
        await page.getByLabel(/^Confirm password/).fill(fixtures.reset.confirm_password)
        await button(context, 'Reset and Sign In').click()
        return
      case 'link.forgot':
        await button(context, 'Forgot Password').click()
        return
      case 'link.back':
        await button(
          context,
          before.matches({ forgotPassword: 'sent' }) ? 'Back to Sign In' : 'Cancel',
        ).click()
        return
      case 'captcha.verified':
        await button(context, CAPTCHA_BUTTONS.verify).click()
        return
      case 'captcha.expired':
        await button(context, CAPTCHA_BUTTONS.expire).click()
        return
      case OUTDATED_NOTICE_EVENT:
        // The notice goes after 3 seconds by the screen's own timer.
        await expect(page.getByText(fixtures.resetFailure)).toHaveCount(0)
        return
      default:
        throw new Error(`no action for ${step.event.type}`)
    }
  },

  async expectStep(context, i) {
    const { page, path, gate } = context
    const { state } = path.steps[i] as QaStep
    const leaf = leafNode(signInScreenModel.machine, state).id
    const { error, notice, captchaError, captchaRequired } = state.context
    const heading = (name: string) => page.getByRole('heading', { level: 1, name })
    const alerts = page.getByRole('alert')
    switch (leaf) {
      case 'signInScreen.signIn.editing.ready':
      case 'signInScreen.signIn.editing.linkOutdated':
      case 'signInScreen.signIn.submitting': {
        // The banners first: the outdated-link notice only shows for 3 seconds.
        if (error) await expect(alerts.filter({ hasText: error })).toBeVisible()
        await expect(heading('Sign In')).toBeVisible()
        await expect(page.getByLabel(/^Email/)).toBeVisible()
        await expect(page.getByLabel(/^Password/)).toBeVisible()
        await expect(page.getByRole('checkbox', { name: 'Remember me' })).toBeVisible()
        await expect(button(context, 'Forgot Password')).toBeVisible()
        if (captchaRequired) await expect(page.getByText('Human check')).toBeVisible()
        else await expect(page.getByText('Human check')).toHaveCount(0)
        if (notice) await expect(page.getByRole('status').filter({ hasText: notice })).toBeVisible()
        if (!error) await expect(alerts.filter({ hasText: fixtures.signInFailure })).toHaveCount(0)
        if (captchaError) await expect(page.getByText(captchaError)).toBeVisible()
        if (leaf.endsWith('submitting')) {
          await gate.held('signIn')
          await expect(button(context, 'Sign In')).toBeDisabled()
        } else {
          await expect(button(context, 'Sign In')).toBeEnabled()
        }
        if (leaf.endsWith('ready') && !error) {
          await expect(page.getByText(fixtures.resetFailure)).toHaveCount(0)
        }
        return
      }
      case 'signInScreen.forgotPassword.editing':
        await expect(heading('Forgot Password')).toBeVisible()
        await expect(button(context, 'Reset')).toBeEnabled()
        await expect(button(context, 'Cancel')).toBeEnabled()
        if (error) await expect(alerts.filter({ hasText: error })).toBeVisible()
        return
      case 'signInScreen.forgotPassword.sending':
        await gate.held('requestPasswordReset')
        await expect(button(context, 'Reset')).toBeDisabled()
        await expect(button(context, 'Cancel')).toBeDisabled()
        return
      case 'signInScreen.forgotPassword.sent':
        await expect(heading('We have sent the link to your email')).toBeVisible()
        await expect(
          page.getByText('Cool! Password recovery instruction has been sent to your email.'),
        ).toBeVisible()
        // example.com has no known webmail: no Check email.
        await expect(page.getByRole('link', { name: 'Check email' })).toHaveCount(0)
        await expect(button(context, 'Back to Sign In')).toBeVisible()
        return
      case 'signInScreen.resetPassword.editing':
        await expect(heading('Please enter a new password!')).toBeVisible()
        await expect(page.getByLabel(/^New password/)).toBeVisible()
        await expect(page.getByLabel(/^Confirm password/)).toBeVisible()
        await expect(button(context, 'Reset and Sign In')).toBeEnabled()
        return
      case 'signInScreen.resetPassword.submitting':
        await gate.held('resetPassword')
        await expect(button(context, 'Reset and Sign In')).toBeDisabled()
        return
      case 'signInScreen.signedIn':
        await expect(page).toHaveURL(/\/dashboard$/)
        await expect(page.getByText(/^Hello, /)).toBeVisible()
        return
      default:
        throw new Error(`no screen check for ${leaf}`)
    }
  },
}

replayFlow(signInScreenFlow, { signInScreen: replayer }, (base) => base)
