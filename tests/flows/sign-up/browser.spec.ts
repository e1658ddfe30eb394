/**
 * The sign-up wizard's Playwright driver: its QA paths and its phone verification's (docs/paths/sign-up.md), replayed in
 * Chromium against the real server under the host name glow.test (not this machine, so no test
 * mode pre-fills the steps). Every path signs up with e-mails and phones of its own; a reload is
 * set up through the API (a verified phone, a payment with the test card) and the progress the
 * wizard keeps in sessionStorage.
 */
import type { Locator } from '@playwright/test'
import type { EventObject } from 'xstate'
import { regionsFor } from '#domain/regions.ts'
import type { SignUpStep } from '#domain/sign-up/progress.ts'
import type { SignUpSampleValues } from '#domain/sign-up/sample-values.ts'
import type { SignUpSnapshot } from '#machines/sign-up/sign-up.selectors.ts'
import { axeViolations, expect, interactive } from '#tests/e2e/support/fixtures.ts'
import {
  expectPhone,
  type PhoneContext,
  performPhone,
} from '#tests/flows/phone-verification/browser.ts'
import { phoneTargets, RESEND_EVENT } from '#tests/flows/phone-verification/model.ts'
import {
  happened,
  leafNode,
  nextAnswer,
  nextAnswerFails,
  type QaPath,
  type QaStep,
} from '#tests/mbt/index.ts'
import {
  pay,
  phoneFor,
  plans,
  signUpPractice,
  smsCode,
  storedProgress,
  valuesFor,
  verifyPhone,
} from '#tests/paths/support/api.ts'
import { REMOTE_ORIGIN } from '#tests/paths/support/hosts.ts'
import {
  apiError,
  atStep,
  letAnswerThrough,
  type Replayer,
  replayFlow,
} from '#tests/paths/support/replay.ts'
import { REPLAY_INPUTS, signUpFlow, signUpModel, takenMeanwhile, takenOnStepOne } from './model.ts'

type Context = PhoneContext & { values: SignUpSampleValues }

const SERVICE_UNAVAILABLE = apiError(503, 'ServiceUnavailable', 'Service Unavailable')

/** Where each reload scenario resumes. */
const RESUME: Record<string, SignUpStep> = {
  'reloaded on step 2': 'accountSetup',
  'reloaded on step 3': 'billing',
  'reloaded on step 3 with Nextech': 'billing',
  'reloaded on step 4': 'confirmation',
  'phone verified before a reload': 'clientDetails',
}

// ---------------------------------------------------------------------------------------------
// A person at the keyboard

const field = (context: Context, label: RegExp) =>
  context.page.getByRole('textbox', { name: label })
const button = (context: Context, name: string) =>
  context.page.getByRole('button', { name, exact: true })
const continueButton = (context: Context) => button(context, 'Continue')

/** Types `value` unless the field already holds it (or is locked), then leaves the field. */
async function setText(locator: Locator, value: string) {
  if (await locator.isDisabled({ timeout: 10_000 })) return
  const now = (await locator.inputValue()).replace(/\s/g, '')
  if (now !== value.replace(/\s/g, '')) await locator.fill(value)
  await locator.blur()
}

/** Picks an option of a select unless it is already chosen. */
async function choose(context: Context, label: RegExp, option: string) {
  const box = context.page.getByRole('combobox', { name: label })
  if ((await box.isDisabled({ timeout: 10_000 })) || (await box.inputValue()) === option) return
  await interactive(context.page)
  await box.click()
  await context.page.getByRole('option', { name: option, exact: true }).click()
  await expect(box).toHaveValue(option)
}

async function fillClientDetails(
  context: Context,
  options: { valid?: boolean; phone?: string } = {},
) {
  const person = context.values.clientDetails
  await choose(context, /^Title/, person.title ?? '')
  await setText(field(context, /^First name/), person.name)
  await setText(field(context, /^Last name/), options.valid === false ? '' : person.last_name)
  await setText(field(context, /^Phone number/), options.phone ?? person.phone)
  await setText(field(context, /^Email/), person.email)
  await setText(context.page.getByLabel(/^Password/), person.password)
  await setText(context.page.getByLabel(/^Confirm password/), person.password_confirm)
  await choose(context, /^Position/, person.position)
}

function regionName(country: 'US' | 'CA', code: string): string {
  return regionsFor(country).find((region) => region.code === code)?.name ?? code
}

async function fillPractice(context: Context, i: number) {
  const { page, path } = context
  const event = (path.steps[i] as QaStep).event as EventObject & {
    values: { e_record: string; nextech: Record<string, string> | null }
  }
  const practice = context.values.practiceDetails
  const taken = nextAnswerFails(path, i, 'checkAvailability')
  await setText(field(context, /^Practice name/), practice.practice_name)
  await setText(field(context, /^Office name/), practice.office_name ?? '')
  await setText(field(context, /^Website/), practice.url)
  await setText(field(context, /^Practice phone/), practice.practice_phone)
  await setText(
    field(context, /^Practice email/),
    taken ? REPLAY_INPUTS.takenEmail : practice.practice_email,
  )
  await choose(context, /^Country/, 'United States')
  await setText(field(context, /^Address( \*)?$/), practice.practice_address)
  await setText(field(context, /^City/), practice.city)
  await choose(context, /^State/, regionName('US', practice.state))
  await setText(field(context, /^Zip code/), practice.practice_zip)
  const nextech = event.values.e_record === 'nextech' ? event.values.nextech : null
  await page.getByRole('radio', { name: nextech ? 'Nextech' : 'No integration' }).check()
  if (nextech) {
    await setText(field(context, /^Client ID/), nextech.client_id ?? '')
    await setText(field(context, /^Username/), nextech.username ?? '')
    await setText(page.getByLabel(/^Nextech password/), nextech.password ?? '')
    await setText(field(context, /^NX Practice ID/), nextech.nx_practice_id ?? '')
  }
}

async function fillBilling(context: Context, i: number) {
  const { page, path } = context
  const billing = context.values.billingInformation
  const answer = nextAnswer(path, i, 'lockPayment') as { error?: Error } | undefined
  const declined = answer?.error !== undefined && answer.error.name !== 'TokenisationError'
  await setText(
    page.getByLabel(/^Card number/),
    declined ? REPLAY_INPUTS.declinedCard : billing.card.number,
  )
  await choose(context, /^Expiration month/, String(billing.card.exp_month).padStart(2, '0'))
  await choose(context, /^Expiration year/, String(billing.card.exp_year))
  await setText(page.getByLabel(/^CVV/), billing.card.cvv)
  await setText(field(context, /^Cardholder name/), billing.card.name)
  await setText(field(context, /^Billing address( \*)?$/), billing.billing_address_1)
  await setText(field(context, /^Billing city/), billing.billing_city)
  await choose(context, /^Billing state/, regionName('US', billing.billing_state))
  await setText(field(context, /^Billing zip/), billing.billing_zip)
  const terms = page.getByRole('checkbox', { name: /Terms and Conditions/ })
  if (!(await terms.isChecked())) await terms.check()
  // Accepting the agreement takes its signature: signing ticks the box.
  const agreement = page.getByRole('checkbox', { name: /Business Associates Agreement/ })
  if (!(await agreement.isChecked())) {
    await button(context, 'Business Associates Agreement').click()
    await setText(field(context, /^Signature/), billing.card.name)
    await setText(field(context, /^Signer's name/), billing.card.name)
    await button(context, 'Sign').click()
    await button(context, 'Back to Billing Information').click()
    await expect(agreement).toBeChecked()
  }
}

/** Step 1 with the code texted to the phone (from the outbox). */
async function verifyPhoneOnScreen(context: Context) {
  const { page, request } = context
  await fillClientDetails(context)
  const asked = new Date(Date.now() - 1000)
  await button(context, 'Get Code').click()
  await expect(page.getByText('Confirmation Code is sent')).toBeVisible()
  const code = await smsCode(request, context.values.clientDetails.phone, asked)
  await field(context, /^Confirmation code/).fill(code)
  await button(context, 'Verify Code').click()
}

// ---------------------------------------------------------------------------------------------
// Opening a path

async function open(context: Context) {
  const { page, request, path } = context
  const resume = RESUME[path.scenario]
  if (path.steps.some((step) => step.event.type === RESEND_EVENT)) await page.clock.install()
  if (!resume) {
    await page.goto(`${REMOTE_ORIGIN}/signup`)
    return
  }
  const { values } = context
  const verifiedPhone = await verifyPhone(
    request,
    values.clientDetails.email,
    values.clientDetails.phone,
  )
  const stripeId = resume === 'confirmation' ? await pay(request, values) : null
  const progress = storedProgress({
    step: resume,
    values,
    verifiedPhone,
    plans: await plans(request),
    stripeId,
    ...(path.scenario.includes('Nextech')
      ? {
          accountSetup: {
            ...values.practiceDetails,
            e_record: 'nextech',
            nextech: { client_id: 'client-1' },
          },
        }
      : {}),
  })
  await page.goto(`${REMOTE_ORIGIN}/404`)
  await page.evaluate(
    (stored) => window.sessionStorage.setItem('signUpProgress', stored),
    JSON.stringify(progress),
  )
  await page.goto(`${REMOTE_ORIGIN}/signup`)
}

/** The values of one path: its own e-mails and phones, and a taken e-mail where step 1 must fail. */
function valuesOf(path: QaPath): SignUpSampleValues {
  const values = valuesFor(path.number)
  const taken = takenOnStepOne(path)
  if (taken === 'email') values.clientDetails.email = REPLAY_INPUTS.takenEmail
  if (taken === 'phone') values.clientDetails.phone = REPLAY_INPUTS.takenPhone
  return values
}

// ---------------------------------------------------------------------------------------------
// The wizard

const wizard: Replayer<Context> = {
  open,

  async perform(context, i) {
    const { page, path, gate } = context
    const step = path.steps[i] as QaStep
    const before = (path.steps[i - 1] as QaStep).state
    const event = step.event as EventObject & { code?: string; error?: Error }
    switch (event.type) {
      case 'xstate.done.actor.phoneVerification':
        await verifyPhoneOnScreen(context)
        return
      case 'xstate.error.actor.loadPlans':
        await gate.release('loadPlans', { ...SERVICE_UNAVAILABLE, repeat: true })
        return
      case 'xstate.error.actor.submitSignUp':
        await gate.release('submitSignUp', SERVICE_UNAVAILABLE)
        return
      case 'xstate.error.actor.lockPayment':
        await gate.release(
          'lockPayment',
          event.error?.name === 'TokenisationError'
            ? apiError(400, 'PaymentError', 'Your card number is incorrect.')
            : undefined,
        )
        return
      case 'clientDetails.continue': {
        if (before.context.verifiedPhone === null) {
          // Continue is disabled until the phone is verified: force it, as a person could with
          // the developer tools, to see that the wizard refuses as well.
          await fillClientDetails(context)
          await expect(continueButton(context)).toBeDisabled()
          await continueButton(context).evaluate((node) => {
            node.removeAttribute('disabled')
            ;(node as HTMLButtonElement).click()
            node.setAttribute('disabled', '')
          })
          return
        }
        const meanwhile = takenMeanwhile(path, i)
        if (meanwhile) {
          // Someone else signs up with this phone (or e-mail) while the wizard is open.
          const person = context.values.clientDetails
          const other = valuesFor(200 + path.number).clientDetails
          await signUpPractice(
            page.request,
            meanwhile === 'email' ? person.email : other.email,
            200 + path.number,
            meanwhile === 'phone' ? person.phone : other.phone,
          )
        }
        if (path.scenario.startsWith('reloaded')) {
          const person = context.values.clientDetails
          await setText(page.getByLabel(/^Password/), person.password)
          await setText(page.getByLabel(/^Confirm password/), person.password_confirm)
        }
        await continueButton(context).click()
        return
      }
      case 'accountSetup.continue':
        await fillPractice(context, i)
        await continueButton(context).click()
        return
      case 'practice.countryChange':
        await choose(context, /^Country/, 'Canada')
        return
      case 'plans.retry':
        await button(context, 'Try again').click()
        return
      case 'plan.termChange':
        await page
          .locator('label')
          .filter({ hasText: /^Yearly$/ })
          .click()
        return
      case 'plan.ehrToggle':
        await page.getByRole('checkbox', { name: /EHR integration/ }).check()
        return
      case 'promo.apply': {
        const unknown = path.steps[i + 1]?.event.type === 'xstate.error.actor.lookupCoupon'
        await setText(
          field(context, /^Promo code/),
          unknown ? REPLAY_INPUTS.unknownPromo : (event.code ?? ''),
        )
        await button(context, 'Apply').click()
        return
      }
      case 'promo.clear':
        await button(context, 'Remove').click()
        return
      case 'terms.open':
        await button(context, 'Terms and Conditions').click()
        return
      case 'agreement.open':
        await button(context, 'Business Associates Agreement').click()
        return
      case 'agreement.sign': {
        const sign = event as EventObject & { signature: string; signer_name: string }
        await setText(field(context, /^Signature/), sign.signature)
        await setText(field(context, /^Signer's name/), sign.signer_name)
        await button(context, 'Sign').click()
        return
      }
      case 'phone.change':
        await button(context, 'Use another number').click()
        return
      case 'view.close':
        await button(context, 'Back to Billing Information').click()
        return
      case 'billing.continue':
        if (before.context.stripeId === null) await fillBilling(context, i)
        await continueButton(context).click()
        return
      case 'confirmation.submit':
        await button(context, 'Submit').click()
        return
      case 'step.back':
        await button(context, before.matches('clientDetails') ? 'Back to Sign In' : 'Back').click()
        return
      case 'form.draft': {
        const first = field(context, /^First name/)
        await first.press('End')
        await first.pressSequentially('x')
        await first.press('Backspace')
        return
      }
      case 'alert.dismiss':
        await button(context, 'Dismiss').click()
        return
      default:
        await letAnswerThrough(gate, event)
    }
  },

  async expectStep(context, i) {
    const { page, path, gate, state } = atStep(context, i)
    if (path.plans[i]?.seen) {
      // Back to Sign In leaves the wizard.
      await expect(page).toHaveURL(/\/signin$/)
      await expect(page.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
      return
    }
    const snapshot = state as unknown as SignUpSnapshot
    const leaf = leafNode(signUpModel.machine, state).id
    const heading = (name: string) => page.getByRole('heading', { level: 2, name })
    await expectAlert(context, snapshot)
    switch (leaf) {
      case 'signUp.clientDetails.editing':
        await expect(heading('Client Information')).toBeVisible()
        await expect(button(context, 'Back to Sign In')).toBeEnabled()
        if (snapshot.context.verifiedPhone) {
          await expect(page.getByText('Phone number verified')).toBeVisible()
          await expect(field(context, /^Phone number/)).not.toBeEditable()
          await expect(continueButton(context)).toBeEnabled()
        } else {
          await expect(continueButton(context)).toHaveAttribute('data-disabled', 'true')
        }
        return
      case 'signUp.clientDetails.checkingAvailability':
      case 'signUp.accountSetup.checkingAvailability':
        await gate.held('checkAvailability')
        await expect(
          heading(leaf.startsWith('signUp.client') ? 'Client Information' : 'Account Setup'),
        ).toBeVisible()
        await expect(continueButton(context)).toBeDisabled()
        return
      case 'signUp.accountSetup.editing': {
        await expect(heading('Account Setup')).toBeVisible()
        const canada = happened(path, i, 'practice.countryChange')
        await expect(
          page.getByRole('combobox', { name: canada ? /^Province or territory/ : /^State/ }),
        ).toBeVisible()
        await expect(button(context, 'Back')).toBeEnabled()
        await expect(continueButton(context)).toBeEnabled()
        return
      }
      case 'signUp.billing.loadingPlans':
        await gate.held('loadPlans')
        await expect(heading('Billing Information')).toBeVisible()
        await expect(page.getByText('Loading plans…')).toBeVisible()
        await expect(continueButton(context)).toBeDisabled()
        return
      case 'signUp.billing.plansFailed':
        await expect(heading('Billing Information')).toBeVisible()
        await expect(button(context, 'Try again')).toBeEnabled()
        await expect(continueButton(context)).toBeDisabled()
        return
      case 'signUp.billing.editing': {
        await expect(heading('Billing Information')).toBeVisible()
        await expect(page.getByRole('region', { name: 'Price summary' })).toBeVisible()
        // The graph tells states apart by what its guards read (signUpSignature); the term and the
        // EHR tick are read from the path's own events.
        const nextech = snapshot.context.practiceDetails?.e_record === 'nextech'
        const ehr = page.getByRole('checkbox', { name: /EHR integration/ })
        if (nextech || happened(path, i, 'plan.ehrToggle')) {
          await expect(ehr).toBeChecked()
          await expect(page.getByRole('region', { name: 'Price summary' })).toContainText(
            'EHR integration',
          )
        } else await expect(ehr).not.toBeChecked()
        if (nextech || snapshot.context.stripeId) await expect(ehr).toBeDisabled()
        else await expect(ehr).toBeEnabled()
        const yearly = page.getByRole('radio', { name: 'Yearly' })
        if (happened(path, i, 'plan.termChange')) await expect(yearly).toBeChecked()
        else await expect(yearly).not.toBeChecked()
        if (snapshot.context.stripeId) {
          await expect(page.getByText(/Paid with the card ending in 4242/)).toBeVisible()
          await expect(field(context, /^Cardholder name/)).not.toBeEditable()
        }
        const { coupon } = snapshot.context
        if (coupon) await expect(page.getByText(`Promo code ${coupon.id} applied`)).toBeVisible()
        else await expect(page.getByText(/^Promo code \S+ applied$/)).toHaveCount(0)
        if ((path.steps[i] as QaStep).event.type === 'xstate.error.actor.lookupCoupon') {
          await expect(page.getByText('Invalid promo code')).toBeVisible()
        }
        await expect(continueButton(context)).toBeEnabled()
        return
      }
      case 'signUp.billing.lookingUpCoupon':
        await gate.held('lookupCoupon')
        await expect(button(context, 'Apply')).toBeDisabled()
        return
      case 'signUp.billing.lockingPayment':
        await gate.held('lockPayment')
        await expect(heading('Billing Information')).toBeVisible()
        await expect(continueButton(context)).toBeDisabled()
        return
      case 'signUp.billing.termsView':
        await expect(heading('Terms and Conditions')).toBeVisible()
        await expect(page.getByText('Effective January 1, 2019')).toBeVisible()
        await expect(button(context, 'Back to Billing Information')).toBeEnabled()
        await expect(continueButton(context)).toHaveCount(0)
        return
      case 'signUp.billing.agreementView': {
        await expect(heading('Business Associates Agreement')).toBeVisible()
        await expect(field(context, /^Signature/)).toBeVisible()
        await expect(field(context, /^Signer's name/)).toBeVisible()
        const signed = (path.steps[i] as QaStep).event as EventObject & { signer_name?: string }
        if (signed.type === 'agreement.sign') {
          await expect(
            page.getByText(new RegExp(`^Signed by ${signed.signer_name} on \\d{4}-\\d{2}-\\d{2}$`)),
          ).toBeVisible()
        }
        return
      }
      case 'signUp.confirmation.reviewing':
        await expect(heading('Confirmation')).toBeVisible()
        await expect(page.getByRole('region', { name: 'Billing Information' })).toContainText(
          '•••• 4242',
        )
        await expect(button(context, 'Submit')).toBeEnabled()
        return
      case 'signUp.confirmation.submitting':
        await gate.held('submitSignUp')
        await expect(button(context, 'Submit')).toBeDisabled()
        return
      case 'signUp.submitted':
        await expect(page).toHaveURL(/\/thankyou$/)
        await expect(page.getByRole('heading', { name: 'Congratulations!' })).toBeVisible()
        return
      default:
        throw new Error(`no screen check for ${leaf}`)
    }
  },
}

/** The wizard's alert: the machine's message, or none. */
async function expectAlert(context: Context, snapshot: SignUpSnapshot) {
  const { alert } = snapshot.context
  const dismiss = button(context, 'Dismiss')
  if (!alert) {
    await expect(dismiss).toHaveCount(0)
    return
  }
  await expect(context.page.getByRole('alert').filter({ hasText: alert.message })).toBeVisible()
  if (alert.kind === 'warning') {
    // A declined card: the warning, the card fields open for another try, and axe clean.
    await expect(context.page.getByText('Payment not completed')).toBeVisible()
    await expect(context.page.getByLabel(/^Card number/)).toBeEnabled()
    expect(await axeViolations(context.page), 'axe on the payment warning').toEqual([])
  }
}

// ---------------------------------------------------------------------------------------------
// The phone verification on step 1

function phoneForm(context: Context) {
  return {
    email: context.values.clientDetails.email,
    phoneFor: (modelPhone: string) =>
      modelPhone === phoneTargets.other.phone
        ? phoneFor('557', 100 + context.path.number)
        : context.values.clientDetails.phone,
    fill: (valid: boolean, phone: string) => fillClientDetails(context, { valid, phone }),
    submit: () => continueButton(context),
  }
}

const phoneOnStepOne: Replayer<Context> = {
  async open(context) {
    await open(context)
    await expect(
      context.page.getByRole('heading', { level: 2, name: 'Client Information' }),
    ).toBeVisible()
  },
  perform: (context, i) => performPhone(context, i),
  expectStep: (context, i) =>
    expectPhone(context, i, { resendHint: /You can ask for a new code in \d+ s/ }),
}

replayFlow<Context>(signUpFlow, { signUp: wizard, signUpPhone: phoneOnStepOne }, (base) => {
  const context: Context = {
    ...base,
    values: valuesOf(base.path),
    form: undefined as never,
    codeAskedAt: new Date(),
    codePhone: '',
  }
  context.form = phoneForm(context)
  return context
})
