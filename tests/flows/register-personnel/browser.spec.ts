/**
 * The personnel registration's Playwright driver: its QA paths (docs/paths/register-personnel.md), replayed in
 * Chromium against the real server: each path gets its own invitation from the demo Admin and
 * phones of its own.
 */
import { randomBytes } from 'node:crypto'
import { expect } from '#tests/e2e/support/fixtures.ts'
import {
  expectPhone,
  type PhoneContext,
  performPhone,
} from '#tests/flows/phone-verification/browser.ts'
import { phoneFixtures, RESEND_EVENT } from '#tests/flows/phone-verification/model.ts'
import { leafNode, type QaPath, type QaStep } from '#tests/mbt/index.ts'
import {
  type Invitee,
  invite,
  phoneFor,
  signUpPractice,
  smsCode,
} from '#tests/paths/support/api.ts'
import { LOCAL_ORIGIN } from '#tests/paths/support/hosts.ts'
import { atStep, letAnswerThrough, type Replayer, replayFlow } from '#tests/paths/support/replay.ts'
import { fixtures, registerPersonnelFlow, registerPersonnelModel } from './model.ts'

const SIGNED_UP =
  'You are successfully Signed Up! Use your new credentials to sign into the system.'

type Context = PhoneContext & { invitee: Invitee }

function invitee(path: QaPath): Invitee {
  const [local, domain] = fixtures.invitation.email.split('@')
  return {
    email: `${local}.${phoneFor('556', path.number)}@${domain}`,
    first: fixtures.invitation.first_name,
    last: fixtures.invitation.last_name,
    title: fixtures.invitation.title,
    position: fixtures.invitation.position,
  }
}

const input = (context: Context, label: RegExp) =>
  context.page.getByRole('textbox', { name: label })
const button = (context: Context, name: string) =>
  context.page.getByRole('button', { name, exact: true })

/** The registration form as the phone verification needs it. */
function form(context: Context) {
  return {
    email: context.invitee.email,
    phoneFor: (modelPhone: string) =>
      phoneFor(modelPhone === phoneFixtures.otherPhone ? '557' : '556', context.path.number),
    fill: async (valid: boolean, phone: string) => {
      for (const label of [/^Password/, /^Confirm password/]) {
        const field = context.page.getByLabel(label)
        if ((await field.inputValue()) !== fixtures.password) await field.fill(fixtures.password)
      }
      const phoneField = input(context, /^Phone number/)
      if ((await phoneField.inputValue()).replace(/\D/g, '') !== phone) await phoneField.fill(phone)
      const lastName = input(context, /^Last name/)
      await lastName.fill(valid ? fixtures.invitation.last_name : '')
      // Leaving the field shows its error (validated on blur) before anything else is clicked.
      await lastName.blur()
    },
    submit: () => button(context, 'Submit'),
  }
}

async function openForm(context: Context): Promise<void> {
  const { page, request, path } = context
  if (path.steps.some((step) => step.event.type === 'xstate.error.actor.loadInvitation')) {
    await page.goto(`${LOCAL_ORIGIN}/signup/personnel/${randomBytes(32).toString('base64url')}`)
    return
  }
  const link = await invite(request, context.invitee)
  if (path.steps.some((step) => step.event.type === RESEND_EVENT)) await page.clock.install()
  await page.goto(link)
}

const registration: Replayer<Context> = {
  open: openForm,

  async perform(context, i) {
    const { page, path, gate, request } = context
    const { event } = path.steps[i] as QaStep
    switch (event.type) {
      case 'xstate.done.actor.phoneVerification': {
        const phone = phoneFor('556', path.number)
        await form(context).fill(true, phone)
        const asked = new Date(Date.now() - 1000)
        await button(context, 'Get Code').click()
        await expect(page.getByText('Confirmation Code is sent')).toBeVisible()
        await input(context, /^Confirmation code/).fill(await smsCode(request, phone, asked))
        await button(context, 'Verify Code').click()
        return
      }
      case 'form.submit':
        await button(context, 'Submit').click()
        return
      case 'xstate.error.actor.registerPersonnel':
        // Someone signs up a practice with the invited e-mail while Submit waits.
        await gate.held('registerPersonnel')
        await signUpPractice(request, context.invitee.email, 50 + path.number)
        await gate.release('registerPersonnel')
        return
      default:
        await letAnswerThrough(gate, event)
    }
  },

  async expectStep(context, i) {
    const { page, gate, state } = atStep(context, i)
    const leaf = leafNode(registerPersonnelModel.machine, state).id
    switch (leaf) {
      case 'registerPersonnel.loading':
        await gate.held('loadInvitation')
        await expect(page.getByText('Opening your invitation…')).toBeVisible()
        await expect(button(context, 'Submit')).toHaveCount(0)
        return
      case 'registerPersonnel.editing.verifyingPhone':
        await expectForm(context)
        await expect(input(context, /^Phone number/)).toBeEnabled()
        await expect(button(context, 'Get Code')).toBeDisabled()
        await expect(button(context, 'Submit')).toBeDisabled()
        return
      case 'registerPersonnel.editing.phoneVerified':
        await expectForm(context)
        await expect(page.getByText('Phone number verified')).toBeVisible()
        await expect(input(context, /^Phone number/)).not.toBeEditable()
        await expect(button(context, 'Submit')).toBeEnabled()
        if (state.context.error) {
          await expect(
            page.getByRole('alert').filter({ hasText: state.context.error }),
          ).toBeVisible()
        }
        return
      case 'registerPersonnel.submitting':
        await gate.held('registerPersonnel')
        await expect(button(context, 'Submit')).toBeDisabled()
        return
      case 'registerPersonnel.registered':
        await expect(page).toHaveURL(/\/signin$/)
        await expect(page.getByText(SIGNED_UP)).toBeVisible()
        return
      case 'registerPersonnel.notFound':
        await expect(page).toHaveURL(/\/404$/)
        await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()
        return
      default:
        throw new Error(`no screen check for ${leaf}`)
    }
  },
}

/** The Registration Details form, pre-filled from the invitation. */
async function expectForm(context: Context) {
  const { page } = context
  await expect(page.getByRole('heading', { level: 2, name: 'Registration Details' })).toBeVisible()
  await expect(input(context, /^First name/)).toHaveValue(context.invitee.first)
  await expect(page.getByLabel('Email')).toHaveValue(context.invitee.email)
  await expect(page.getByLabel('Email')).not.toBeEditable()
  await expect(page.getByLabel('Position')).toHaveValue(context.invitee.position)
  await expect(page.getByLabel('Position')).not.toBeEditable()
}

const phoneOnForm: Replayer<Context> = {
  async open(context) {
    await openForm(context)
    await expectForm(context)
  },
  perform: (context, i) => performPhone(context, i),
  expectStep: (context, i) =>
    expectPhone(context, i, {
      resendHint: /You can ask for a new code 30 seconds after the last one\./,
    }),
}

replayFlow<Context>(
  registerPersonnelFlow,
  { registerPersonnel: registration, personnelPhone: phoneOnForm },
  (base) => {
    const context: Context = {
      ...base,
      invitee: invitee(base.path),
      form: undefined as never,
      codeAskedAt: new Date(),
      codePhone: '',
    }
    context.form = form(context)
    return context
  },
)
