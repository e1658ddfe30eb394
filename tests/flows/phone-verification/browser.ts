/**
 * The phone verification's Playwright driver, as a person drives it on a form (step 1 of the wizard, the personnel
 * registration): what each event does in the browser, and what the screen must show for each of
 * its states. The form's own fields (the phone, the rest of the form) come from the flow's spec.
 */
import { expect, type Locator, type Page } from '@playwright/test'
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import { nextAnswerFails, type QaPath, type QaStep } from '#tests/mbt/index.ts'
import { askCode, smsCode } from '#tests/paths/support/api.ts'
import { letAnswerThrough, type ReplayContext } from '#tests/paths/support/replay.ts'
import { type PhoneModelEvent, RESEND_EVENT, resendWaitIsOver } from './model.ts'

/** A message as a pattern: numbers in it may differ (`Please wait 28 seconds…`). */
export function messagePattern(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, '\\d+')
  return new RegExp(escaped)
}

/** What a flow tells the phone verification about its form. */
export type PhoneForm = {
  /** The e-mail the code is asked for (the form's e-mail). */
  email: string
  /** The phone the replay types for a phone of the model (each path has phones of its own). */
  phoneFor: (modelPhone: string) => string
  /** Makes the form valid or not, with `phone` in the phone field. */
  fill: (valid: boolean, phone: string) => Promise<void>
  /** The form's submit button (Continue or Submit) and whether a verified phone enables it. */
  submit: () => Locator
}

/** A replay that drives a phone verification. */
export type PhoneContext = ReplayContext & {
  form: PhoneForm
  /** When the last code was asked for, to find its SMS. */
  codeAskedAt: Date
  /** The phone the last code went to. */
  codePhone: string
}

const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true })

/** The phone verification snapshot after step `i`. */
function snapshotAt(path: QaPath, i: number): AnyMachineSnapshot {
  return (path.steps[i] as QaStep).state
}

/** Performs phone verification event `i` of the path. */
export async function performPhone(context: PhoneContext, i: number): Promise<void> {
  const { page, path, gate, request, form } = context
  const event = (path.steps[i] as QaStep).event as PhoneModelEvent
  const before = snapshotAt(path, i - 1)
  switch (event.type) {
    case 'fields.change':
      await form.fill(event.valid, form.phoneFor(event.target.phone))
      return
    case 'code.change': {
      const input = page.getByRole('textbox', { name: 'Confirmation code' })
      if (event.code.length < 6) {
        await input.fill(event.code)
        return
      }
      const code = await smsCode(request, context.codePhone, context.codeAskedAt)
      const wrong = nextAnswerFails(path, i, 'verifyCode')
      // A wrong code: the right one with its last digit changed.
      await input.fill(wrong ? `${code.slice(0, 5)}${(Number(code[5]) + 1) % 10}` : code)
      return
    }
    case 'code.send':
      context.codeAskedAt = new Date(Date.now() - 1000)
      context.codePhone = form.phoneFor(before.context.target?.phone ?? '')
      await button(page, 'Get Code').click()
      return
    case 'code.verify':
      await button(page, 'Verify Code').click()
      return
    case 'xstate.error.actor.sendCode': {
      if (before.context.authyId === null) {
        // Another tab asked for a code for this phone a moment ago: the server's 30-second gap.
        const other = await askCode(request, form.email, context.codePhone)
        expect(other.status, 'the code asked for from another tab').toBe(200)
      }
      await gate.release('sendCode')
      return
    }
    case 'xstate.done.actor.verifyCode':
      await gate.release(
        'verifyCode',
        event.output.verified ? undefined : { status: 200, body: { verified: false } },
      )
      return
    case RESEND_EVENT:
      await expect(page.getByText(/You can ask for a new code/)).toBeVisible()
      await page.clock.fastForward(30_000)
      return
    default:
      await letAnswerThrough(gate, event as EventObject)
  }
}

/** Checks the phone verification part of the form for the state after step `i`. */
export async function expectPhone(
  context: PhoneContext,
  i: number,
  options: { resendHint: RegExp },
): Promise<void> {
  const { page, path, gate, form } = context
  const state = snapshotAt(path, i)
  const over = resendWaitIsOver(path, i)
  const coolingDown = state.matches({ codeSent: 'coolingDown' }) && !over
  const verified = state.matches('verified')
  const phoneInput = page.getByRole('textbox', { name: /^Phone number/ })
  if (state.matches('sendingCode')) await gate.held('sendCode')
  if (state.matches('verifying')) await gate.held('verifyCode')
  if (verified) {
    await expect(page.getByText('Phone number verified')).toBeVisible()
    await expect(phoneInput).not.toBeEditable()
    await expect(form.submit()).toBeEnabled()
    return
  }
  const { fieldsValid, target, notice, error } = state.context
  const canSend =
    state.matches('idle') || (state.matches('codeSent') && (over || !coolingDown))
      ? fieldsValid && target !== null
      : false
  const getCode = button(page, 'Get Code')
  if (canSend) await expect(getCode).toBeEnabled()
  else await expect(getCode).toBeDisabled()
  const code = page.getByRole('textbox', { name: 'Confirmation code' })
  if (state.matches('codeSent')) await expect(code).toBeEnabled()
  else await expect(code).toBeDisabled()
  const busy = state.matches('sendingCode') || state.matches('verifying')
  if (busy) await expect(phoneInput).not.toBeEditable()
  else await expect(phoneInput).toBeEnabled()
  const verify = button(page, 'Verify Code')
  if (state.can({ type: 'code.verify' })) await expect(verify).toBeEnabled()
  else await expect(verify).toBeDisabled()
  await expect(form.submit()).toBeDisabled()
  if (error) {
    await expect(page.getByRole('alert').filter({ hasText: messagePattern(error) })).toBeVisible()
  } else {
    await expect(page.getByText('Incorrect Confirmation Code entered')).toHaveCount(0)
  }
  if (notice && !error) await expect(page.getByText(notice)).toBeVisible()
  if (coolingDown) await expect(page.getByText(options.resendHint)).toBeVisible()
  else await expect(page.getByText(options.resendHint)).toHaveCount(0)
}
