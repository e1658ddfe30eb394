import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, waitFor } from 'xstate'
import type {
  ApprovalAnswer,
  ApprovalRequest,
  VisitAnswer,
  VisitInput,
  VisitPreviewInput,
} from '#domain/visits.ts'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import {
  allowanceLineWords,
  allowanceSentence,
  bankProblem,
  bankUseAll,
  type CheckoutInput,
  type CheckoutPreview,
  checkoutMachine,
  codeAmount,
  cycleWords,
  deskCents,
  dueCents,
  memberPriceSentence,
  multiplierWords,
  needsConsent,
  type UndoAnswer,
  visitRequest,
} from '#machines/checkout/checkout.machine.ts'
import {
  selectBusy,
  selectNeedsConsent,
  selectRedemptionProblem,
  selectResendSecondsLeft,
  selectStepIndex,
} from '#machines/checkout/checkout.selectors.ts'
import { checkoutFixtures as f } from '#tests/flows/checkout/model.ts'
import { controlled } from '#tests/support/deferred.ts'

function start(input: Partial<CheckoutInput> = {}) {
  const previewVisit = controlled<CheckoutPreview, VisitPreviewInput>()
  const sendCode = controlled<
    { authyId: string },
    { patientId: number; points?: number; promotion_id?: number; bank_cents?: number }
  >()
  const checkCode = controlled<
    { valid: true },
    { patientId: number; authyId: string; code: string; points?: number; bank_cents?: number }
  >()
  const approveVisit = controlled<ApprovalAnswer, ApprovalRequest>()
  const recordVisit = controlled<VisitAnswer, VisitInput>()
  const undoVisit = controlled<UndoAnswer, { visitId: number }>()
  const onRecorded = vi.fn()
  const onUndone = vi.fn()
  const actor = createActor(
    checkoutMachine.provide({
      actors: {
        previewVisit: previewVisit.logic,
        sendCode: sendCode.logic,
        checkCode: checkCode.logic,
        approveVisit: approveVisit.logic,
        recordVisit: recordVisit.logic,
        undoVisit: undoVisit.logic,
      },
      actions: { onRecorded: (_, params) => onRecorded(params.answer), onUndone },
    }),
    { input: { idempotencyKey: f.key, canOverride: true, ...input } },
  ).start()
  return {
    actor,
    previewVisit,
    sendCode,
    checkCode,
    approveVisit,
    recordVisit,
    undoVisit,
    onRecorded,
    onUndone,
  }
}

type Harness = ReturnType<typeof start>

/** Patient, one line each, and the preview answered. */
async function toReview(h: Harness) {
  h.actor.send({ type: 'patient.choose', patient: f.patient })
  h.actor.send({ type: 'item.add', item: f.procedure })
  h.actor.send({ type: 'item.add', item: f.product })
  h.actor.send({ type: 'items.submit' })
  h.previewVisit.latest().answer.resolve(f.preview)
  await waitFor(h.actor, (s) => s.matches('reviewing'))
}

describe('checkout', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-11-25T10:00:00.000Z') }))
  afterEach(() => vi.useRealTimers())

  it('opens on the patient, or on the items when the patient is known', () => {
    expect(start().actor.getSnapshot().value).toBe('choosingPatient')
    const fromAppointment = start({
      patient: f.patient,
      appointment: { id: f.appointmentId, item: f.procedure },
    }).actor.getSnapshot()
    expect(fromAppointment.value).toBe('editingItems')
    expect(fromAppointment.context.items).toEqual([f.procedure])
    expect(fromAppointment.can({ type: 'patient.change' })).toBe(false)
  })

  it('adds the same item once with a higher quantity, edits prices, needs a line to preview', () => {
    const { actor } = start({ patient: f.patient })
    expect(actor.getSnapshot().can({ type: 'items.submit' })).toBe(false)
    actor.send({ type: 'item.add', item: f.product })
    actor.send({ type: 'item.add', item: f.product })
    actor.send({ type: 'item.change', key: f.product.key, quantity: 3, price_cents: 5_000 })
    expect(actor.getSnapshot().context.items).toEqual([
      { ...f.product, quantity: 3, price_cents: 5_000 },
    ])
    actor.send({ type: 'item.remove', key: f.product.key })
    expect(actor.getSnapshot().can({ type: 'items.submit' })).toBe(false)
  })

  it('previews with the lines as entered, and keeps them when the preview fails', async () => {
    const h = start({ patient: f.patient, appointment: { id: 12, item: f.procedure } })
    h.actor.send({ type: 'items.submit' })
    expect(selectBusy(h.actor.getSnapshot())).toBe('preview')
    expect(h.previewVisit.latest().input).toEqual({
      patient_id: f.patient.id,
      appointment_id: 12,
      items: [{ procedure_id: 2, quantity: 1, price_cents: 19_900 }],
    })
    h.previewVisit.latest().answer.reject(new Error(f.previewFailed))
    await waitFor(h.actor, (s) => s.matches('editingItems'))
    expect(h.actor.getSnapshot().context).toMatchObject({
      items: [f.procedure],
      error: f.previewFailed,
    })
  })

  it('records a visit without a redemption in one post with the checkout key', async () => {
    const h = start()
    await toReview(h)
    expect(selectStepIndex(h.actor.getSnapshot())).toBe(2)
    h.actor.send({ type: 'review.submit' })
    expect(h.actor.getSnapshot().value).toBe('confirming')
    h.actor.send({ type: 'visit.confirm' })
    // A double click: the second confirm is not handled while the first posts.
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.calls).toHaveLength(1)
    expect(h.recordVisit.latest().input).toEqual({
      patient_id: f.patient.id,
      appointment_id: null,
      items: [
        { procedure_id: 2, quantity: 1, price_cents: 19_900 },
        { product_id: 5, quantity: 1, price_cents: 18_200 },
      ],
      idempotencyKey: f.key,
    })
    h.recordVisit.latest().answer.resolve(f.answer)
    await waitFor(h.actor, (s) => s.matches({ done: 'undoable' }))
    expect(h.onRecorded).toHaveBeenCalledWith(f.answer)
  })

  it('keeps everything after a timeout and retries with the same key', async () => {
    const h = start()
    await toReview(h)
    h.actor.send({ type: 'redemption.choose', redemption: { kind: 'points', points: 50 } })
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'visit.confirm' })
    h.recordVisit.latest().answer.reject(new Error(f.timeout))
    await waitFor(h.actor, (s) => s.matches('confirming'))
    expect(h.actor.getSnapshot().context.error).toBe(
      `${f.timeout} Nothing was recorded twice: press Confirm visit again to retry.`,
    )
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.calls).toHaveLength(2)
    expect(h.recordVisit.calls[1]?.input).toEqual(h.recordVisit.calls[0]?.input)
    expect(h.recordVisit.latest().input.redemption).toEqual({ points: 50 })
  })

  it('asks for the code above the threshold, resends after 30 s, and sends it with the visit', async () => {
    const h = start()
    await toReview(h)
    h.actor.send({ type: 'redemption.choose', redemption: { kind: 'points', points: 300 } })
    expect(selectNeedsConsent(h.actor.getSnapshot())).toBe(true)
    h.actor.send({ type: 'review.submit' })
    expect(h.actor.getSnapshot().matches({ consent: { code: 'idle' } })).toBe(true)
    h.actor.send({ type: 'code.send' })
    // The code is for these 300 points only.
    expect(h.sendCode.latest().input).toEqual({ patientId: f.patient.id, points: 300 })
    h.sendCode.latest().answer.resolve({ authyId: f.authyId })
    await waitFor(h.actor, (s) => s.matches({ consent: { code: { sent: 'coolingDown' } } }))
    expect(selectResendSecondsLeft(h.actor.getSnapshot(), Date.now())).toBe(30)
    expect(h.actor.getSnapshot().can({ type: 'code.send' })).toBe(false)
    expect(h.actor.getSnapshot().can({ type: 'consent.submit' })).toBe(false)
    vi.advanceTimersByTime(30_000)
    expect(h.actor.getSnapshot().can({ type: 'code.send' })).toBe(true)
    h.actor.send({ type: 'code.change', code: f.code })
    // The sixth digit checks the code at once.
    expect(selectBusy(h.actor.getSnapshot())).toBe('check')
    expect(h.checkCode.latest().input).toEqual({
      patientId: f.patient.id,
      authyId: f.authyId,
      code: f.code,
      points: 300,
    })
    h.checkCode.latest().answer.resolve({ valid: true })
    await waitFor(h.actor, (s) => s.matches('confirming'))
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.latest().input.redemption).toEqual({
      points: 300,
      verification: { authyId: f.authyId, code: f.code },
    })
  })

  it('a wrong code is said as soon as it is typed, before Confirm; too many attempts ask for a new code', async () => {
    const h = start()
    await toReview(h)
    h.actor.send({ type: 'redemption.choose', redemption: { kind: 'points', points: 300 } })
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'code.send' })
    h.sendCode.latest().answer.resolve({ authyId: f.authyId })
    await waitFor(h.actor, (s) => s.matches({ consent: { code: 'sent' } }))
    h.actor.send({ type: 'code.change', code: '000' })
    expect(h.checkCode.calls).toHaveLength(0)
    h.actor.send({ type: 'code.change', code: '000000' })
    h.checkCode.latest().answer.reject(new Error(VISIT_MESSAGES.codeIncorrect))
    await waitFor(h.actor, (s) => s.matches({ consent: { code: 'sent' } }))
    expect(h.recordVisit.calls).toHaveLength(0)
    expect(h.actor.getSnapshot().context).toMatchObject({
      code: '',
      authyId: f.authyId,
      error: `${VISIT_MESSAGES.codeIncorrect} Please check the code with the patient and type it again.`,
    })
    h.actor.send({ type: 'code.change', code: '111111' })
    h.checkCode.latest().answer.reject(new Error(VISIT_MESSAGES.codeAttempts))
    await waitFor(h.actor, (s) => s.matches({ consent: { code: 'idle' } }))
    expect(h.actor.getSnapshot().context).toMatchObject({
      authyId: null,
      error: VISIT_MESSAGES.codeAttempts,
    })
  })

  it("asks a manager's approval for a price above the catalogue's: Staff with a manager's sign-in, bound to the lines", async () => {
    const h = start({ canOverride: false })
    h.actor.send({ type: 'patient.choose', patient: f.patient })
    h.actor.send({ type: 'item.add', item: f.product })
    h.actor.send({ type: 'item.change', key: f.product.key, quantity: 1, price_cents: f.tenTimes })
    h.actor.send({ type: 'items.submit' })
    h.previewVisit.latest().answer.resolve(f.previewApproval)
    await waitFor(h.actor, (s) => s.matches('reviewing'))
    h.actor.send({ type: 'review.submit' })
    expect(h.actor.getSnapshot().matches({ approval: 'editing' })).toBe(true)
    h.actor.send({ type: 'approval.change', fields: { reason: f.approvalFields.reason } })
    // Staff cannot approve alone: the manager's e-mail and password are needed.
    expect(h.actor.getSnapshot().can({ type: 'approval.submit' })).toBe(false)
    h.actor.send({ type: 'approval.change', fields: f.approvalFields })
    h.actor.send({ type: 'approval.submit' })
    expect(h.approveVisit.latest().input).toEqual({
      patient_id: f.patient.id,
      items: [{ product_id: 5, quantity: 1, price_cents: f.tenTimes }],
      reason: f.approvalFields.reason,
      manager: { email: f.approvalFields.email, password: f.approvalFields.password },
    })
    h.approveVisit.latest().answer.reject(new Error(VISIT_MESSAGES.approverCredentials))
    await waitFor(h.actor, (s) => s.matches({ approval: 'editing' }))
    expect(h.actor.getSnapshot().context.approvalFields.password).toBe('')
    h.actor.send({ type: 'approval.change', fields: { password: f.approvalFields.password } })
    h.actor.send({ type: 'approval.submit' })
    h.approveVisit.latest().answer.resolve(f.approval)
    await waitFor(h.actor, (s) => s.matches('reviewing'))
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.latest().input.approval).toEqual({ token: f.approval.token })
    // Other lines need another approval.
    const again = start({ canOverride: true })
    again.actor.send({ type: 'patient.choose', patient: f.patient })
    again.actor.send({ type: 'item.add', item: f.product })
    again.actor.send({ type: 'items.submit' })
    again.previewVisit.latest().answer.resolve(f.previewApproval)
    await waitFor(again.actor, (s) => s.matches('reviewing'))
    again.actor.send({ type: 'review.submit' })
    again.actor.send({ type: 'approval.change', fields: { reason: 'ok' } })
    again.actor.send({ type: 'approval.submit' })
    expect(again.approveVisit.latest().input.manager).toBeUndefined()
    again.approveVisit.latest().answer.resolve(f.approval)
    await waitFor(again.actor, (s) => s.matches('reviewing'))
    again.actor.send({ type: 'items.edit' })
    expect(again.actor.getSnapshot().context.approval).toBeNull()
  })

  it('an override needs a reason and the permission', async () => {
    const staff = start({ canOverride: false })
    await toReview(staff)
    staff.actor.send({ type: 'redemption.choose', redemption: { kind: 'points', points: 300 } })
    staff.actor.send({ type: 'review.submit' })
    expect(staff.actor.getSnapshot().can({ type: 'consent.useOverride' })).toBe(false)

    const h = start()
    await toReview(h)
    h.actor.send({ type: 'redemption.choose', redemption: { kind: 'points', points: 300 } })
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'consent.useOverride' })
    expect(h.actor.getSnapshot().can({ type: 'consent.submit' })).toBe(false)
    h.actor.send({ type: 'override.change', reason: `  ${f.reason} ` })
    h.actor.send({ type: 'consent.submit' })
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.latest().input.redemption).toEqual({
      points: 300,
      override: { reason: f.reason },
    })
  })

  it('refuses more points than the patient can spend, and redeems a claimed offer', async () => {
    const h = start()
    await toReview(h)
    h.actor.send({ type: 'redemption.choose', redemption: { kind: 'points', points: 9_000 } })
    expect(selectRedemptionProblem(h.actor.getSnapshot())).toBe(
      'The patient can redeem at most 580 points at this visit.',
    )
    expect(h.actor.getSnapshot().can({ type: 'review.submit' })).toBe(false)
    h.actor.send({
      type: 'redemption.choose',
      redemption: { kind: 'promotion', promotion_id: 2, title: 'Birthday Glow' },
    })
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.latest().input.redemption).toEqual({ promotion_id: 2 })
  })

  it('a promotion that needs the code after all goes to the code step', async () => {
    const h = start()
    await toReview(h)
    h.actor.send({
      type: 'redemption.choose',
      redemption: { kind: 'promotion', promotion_id: 2, title: 'Birthday Glow' },
    })
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'visit.confirm' })
    h.recordVisit.latest().answer.reject(new Error(VISIT_MESSAGES.codeNeeded(500)))
    await waitFor(h.actor, (s) => s.matches({ consent: { code: 'idle' } }))
  })

  it('undoes within 10 minutes; after them Undo is gone', async () => {
    const h = start()
    await toReview(h)
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'visit.confirm' })
    h.recordVisit.latest().answer.resolve(f.answer)
    await waitFor(h.actor, (s) => s.matches({ done: 'undoable' }))
    h.actor.send({ type: 'visit.undo' })
    expect(h.undoVisit.latest().input).toEqual({ visitId: f.answer.visit.id })
    h.undoVisit.latest().answer.resolve({ balance: 400 })
    await waitFor(h.actor, (s) => s.matches('undone'))
    expect(h.actor.getSnapshot().context.undoneBalance).toBe(400)
    expect(h.onUndone).toHaveBeenCalled()

    const late = start()
    await toReview(late)
    late.actor.send({ type: 'review.submit' })
    late.actor.send({ type: 'visit.confirm' })
    late.recordVisit.latest().answer.resolve(f.answer)
    await waitFor(late.actor, (s) => s.matches({ done: 'undoable' }))
    vi.advanceTimersByTime(10 * 60 * 1000)
    expect(late.actor.getSnapshot().matches({ done: 'closed' })).toBe(true)
  })
})

describe('the consent a redemption needs', () => {
  const at = (threshold: number) => ({
    preview: { ...f.preview.preview, redemption_code_threshold: threshold },
    offers: [f.offer, { ...f.offer, promotion_id: 9, title: 'Peel for points', cost: 150 }],
  })
  const offer = (promotion_id: number) =>
    ({ kind: 'promotion', promotion_id, title: 'offer' }) as const

  it('asks for the code for every redemption when the threshold is 0, a free offer too', () => {
    expect(needsConsent({ ...at(0), redemption: offer(f.offer.promotion_id) })).toBe(true)
    expect(needsConsent({ ...at(0), redemption: { kind: 'points', points: 1 } })).toBe(true)
    expect(needsConsent({ ...at(0), redemption: { kind: 'none' } })).toBe(false)
  })

  it('asks above a threshold: by the points, or by what the claimed offer costs', () => {
    expect(needsConsent({ ...at(100), redemption: offer(f.offer.promotion_id) })).toBe(false)
    expect(needsConsent({ ...at(100), redemption: offer(9) })).toBe(true)
    expect(needsConsent({ ...at(100), redemption: { kind: 'points', points: 100 } })).toBe(false)
    expect(needsConsent({ ...at(100), redemption: { kind: 'points', points: 101 } })).toBe(true)
  })
})

/** The member's preview with $200 in the bank: more than the visit comes to. */
const richerBank: CheckoutPreview = {
  ...f.previewMember,
  preview: {
    ...f.previewMember.preview,
    membership: f.previewMember.preview.membership && {
      ...f.previewMember.preview.membership,
      bank_cents: 20_000,
    },
  },
}

/** The member's two lines, previewed with `preview` (the member's, or the past-due one's). */
async function toMemberReview(h: Harness, preview: CheckoutPreview = f.previewMember) {
  h.actor.send({ type: 'item.add', item: f.procedure })
  h.actor.send({ type: 'item.add', item: f.product })
  h.actor.send({ type: 'items.submit' })
  h.previewVisit.latest().answer.resolve(preview)
  await waitFor(h.actor, (s) => s.matches('reviewing'))
}

describe('a member at checkout', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-11-25T10:00:00.000Z') }))
  afterEach(() => vi.useRealTimers())

  it('pays from the bank only with a membership, and always with the patient’s code', async () => {
    const plain = start()
    await toReview(plain)
    expect(plain.actor.getSnapshot().can({ type: 'bank.change', cents: 100 })).toBe(false)
    expect(plain.actor.getSnapshot().can({ type: 'bank.useAll' })).toBe(false)

    const h = start({ patient: f.member, canOverride: false })
    await toMemberReview(h)
    // No points and no offer: nothing needs the code yet.
    expect(selectNeedsConsent(h.actor.getSnapshot())).toBe(false)
    h.actor.send({ type: 'bank.change', cents: f.bankPay })
    // Below the points threshold, any amount from the bank needs the code.
    expect(selectNeedsConsent(h.actor.getSnapshot())).toBe(true)
    h.actor.send({ type: 'review.submit' })
    expect(h.actor.getSnapshot().matches({ consent: { code: 'idle' } })).toBe(true)
    h.actor.send({ type: 'code.send' })
    expect(h.sendCode.latest().input).toEqual({ patientId: f.member.id, bank_cents: f.bankPay })
    h.sendCode.latest().answer.resolve({ authyId: f.authyId })
    await waitFor(h.actor, (s) => s.matches({ consent: { code: 'sent' } }))
    h.actor.send({ type: 'code.change', code: f.code })
    expect(h.checkCode.latest().input).toEqual({
      patientId: f.member.id,
      authyId: f.authyId,
      code: f.code,
      bank_cents: f.bankPay,
    })
    h.checkCode.latest().answer.resolve({ valid: true })
    await waitFor(h.actor, (s) => s.matches('confirming'))
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.latest().input).toEqual({
      patient_id: f.member.id,
      appointment_id: null,
      items: [
        { procedure_id: 2, quantity: 1, price_cents: 19_900 },
        { product_id: 5, quantity: 1, price_cents: 18_200 },
      ],
      idempotencyKey: f.key,
      redemption: { bank_cents: f.bankPay, verification: { authyId: f.authyId, code: f.code } },
    })
    h.recordVisit.latest().answer.resolve(f.answerMember)
    await waitFor(h.actor, (s) => s.matches({ done: 'undoable' }))
    expect(h.actor.getSnapshot().context.result?.membership_bank_cents).toBe(7_500)
    h.actor.send({ type: 'visit.undo' })
    h.undoVisit.latest().answer.resolve(f.undoneMember)
    await waitFor(h.actor, (s) => s.matches('undone'))
    expect(h.actor.getSnapshot().context).toMatchObject({
      undoneBalance: 400,
      undoneBank: 10_000,
    })
  })

  it('a new bank amount drops the code sent for the last one; seeing the items again empties it', async () => {
    const h = start({ patient: f.member })
    await toMemberReview(h)
    h.actor.send({ type: 'bank.change', cents: f.bankPay })
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'code.send' })
    h.sendCode.latest().answer.resolve({ authyId: f.authyId })
    await waitFor(h.actor, (s) => s.matches({ consent: { code: 'sent' } }))
    h.actor.send({ type: 'consent.back' })
    h.actor.send({ type: 'bank.change', cents: 3_000 })
    expect(h.actor.getSnapshot().context.authyId).toBeNull()
    h.actor.send({ type: 'review.submit' })
    expect(h.actor.getSnapshot().matches({ consent: { code: 'idle' } })).toBe(true)
    h.actor.send({ type: 'consent.back' })
    h.actor.send({ type: 'items.edit' })
    expect(h.actor.getSnapshot().context.bankCents).toBe(0)
  })

  it('refuses more than the bank holds or the visit comes to, in the server’s words', async () => {
    const h = start({ patient: f.member })
    await toMemberReview(h)
    h.actor.send({ type: 'bank.change', cents: 10_001 })
    expect(selectRedemptionProblem(h.actor.getSnapshot())).toBe(
      VISIT_MESSAGES.bankTooLittle(10_000),
    )
    // An amount the bank cannot pay takes nothing off what is due at the desk.
    expect(deskCents(h.actor.getSnapshot().context)).toBe(15_470)
    expect(h.actor.getSnapshot().can({ type: 'review.submit' })).toBe(false)
    // A bank of $200: $154.70 is due after the included HydraFacial and the member price.
    const rich = start({ patient: f.member })
    await toMemberReview(rich, richerBank)
    rich.actor.send({ type: 'bank.change', cents: 15_471 })
    expect(selectRedemptionProblem(rich.actor.getSnapshot())).toBe(
      VISIT_MESSAGES.bankMoreThanDue(15_470),
    )
    // Use all pays what is due, when that is less than the bank.
    rich.actor.send({ type: 'bank.useAll' })
    expect(rich.actor.getSnapshot().context.bankCents).toBe(15_470)
    expect(deskCents(rich.actor.getSnapshot().context)).toBe(0)
    expect(rich.actor.getSnapshot().can({ type: 'review.submit' })).toBe(true)
    // A bank smaller than what is due: all of it.
    h.actor.send({ type: 'bank.useAll' })
    expect(h.actor.getSnapshot().context.bankCents).toBe(10_000)
    expect(deskCents(h.actor.getSnapshot().context)).toBe(5_470)
  })

  it('a past-due member: no perks, the flag, and the bank still pays (all of it with Use all)', async () => {
    const h = start({ patient: f.pastDueMember })
    await toMemberReview(h, f.previewPastDue)
    const { context } = h.actor.getSnapshot()
    expect(context.preview?.membership?.flag).toBe(VISIT_MESSAGES.memberPastDue('Glow Club'))
    expect(dueCents(context)).toBe(38_100)
    expect(multiplierWords(context.preview?.membership)).toBeNull()
    h.actor.send({ type: 'bank.useAll' })
    expect(h.actor.getSnapshot().context.bankCents).toBe(10_000)
    expect(deskCents(h.actor.getSnapshot().context)).toBe(28_100)
  })

  it('a bank refusal at Confirm asks for another amount instead of a retry', async () => {
    const h = start({ patient: f.member })
    await toMemberReview(h)
    h.actor.send({ type: 'bank.change', cents: f.bankPay })
    h.actor.send({ type: 'review.submit' })
    h.actor.send({ type: 'consent.useOverride' })
    h.actor.send({ type: 'override.change', reason: f.reason })
    h.actor.send({ type: 'consent.submit' })
    h.actor.send({ type: 'visit.confirm' })
    expect(h.recordVisit.latest().input.redemption).toEqual({
      bank_cents: f.bankPay,
      override: { reason: f.reason },
    })
    h.recordVisit.latest().answer.reject(new Error(VISIT_MESSAGES.bankTooLittle(1_000)))
    await waitFor(h.actor, (s) => s.matches('confirming'))
    expect(h.actor.getSnapshot().context.error).toBe(
      `${VISIT_MESSAGES.bankTooLittle(1_000)} Nothing was recorded: press Back and change the amount paid from the bank.`,
    )
  })
})

describe('the member’s words and amounts', () => {
  const allowance = {
    catalogue_item_id: 2,
    name: 'HydraFacial',
    per_cycle: 1,
    remaining: 1,
    used: 1,
  }
  const membership = f.previewMember.preview.membership

  it('says an allowance against the plan’s cycle', () => {
    expect(allowanceSentence(allowance, 'month')).toBe('1 of 1 HydraFacial included this month')
    expect(allowanceLineWords(allowance, 'month')).toBe('1 of 1 HydraFacial this month')
    expect(cycleWords('quarter')).toBe('these 3 months')
    expect(cycleWords('year')).toBe('this year')
    const some = { ...allowance, per_cycle: 3, remaining: 2 }
    expect(allowanceSentence(some, 'quarter')).toBe(
      '1 of the 2 HydraFacial left these 3 months (3 included)',
    )
    expect(allowanceSentence({ ...allowance, remaining: 0, used: 0 }, 'year')).toBe(
      'No HydraFacial left this year: all 1 included were used.',
    )
  })

  it('says a line’s member price and the multiplier', () => {
    expect(memberPriceSentence(membership, { member_discount_cents: 1_350 })).toBe(
      'Member price: −$13.50 (15%)',
    )
    expect(memberPriceSentence(membership, { member_discount_cents: 0 })).toBeNull()
    expect(multiplierWords(membership)).toBe('2× member points')
  })

  it('one code covers the points, the offer and the bank together', () => {
    expect(codeAmount({ kind: 'none' }, [], 2_500)).toEqual({ bank_cents: 2_500 })
    expect(codeAmount({ kind: 'points', points: 300 }, [], 2_500)).toEqual({
      points: 300,
      bank_cents: 2_500,
    })
    expect(
      codeAmount(
        { kind: 'promotion', promotion_id: 2, title: 'Birthday Glow', points: 50 },
        [],
        100,
      ),
    ).toEqual({ promotion_id: 2, points: 50, bank_cents: 100 })
    expect(codeAmount({ kind: 'points', points: 300 })).toEqual({ points: 300 })
  })

  it('works the bank out on what is due after the member’s perks and the chosen offer', () => {
    const preview = {
      ...f.previewMember.preview,
      offer_values: [
        {
          promotion_id: 2,
          title: 'Birthday Glow',
          value: '$5.00 off',
          lines: [
            { discount_cents: 0, points: 0 },
            { discount_cents: 500, points: 100 },
          ],
          discount_cents: 500,
          total_cents: 5_025,
          points: 100,
          problem: null,
        },
      ],
    }
    const context = {
      preview,
      offers: [{ ...f.offer, value: preview.offer_values[0] }],
      redemption: { kind: 'promotion', promotion_id: 2, title: 'Birthday Glow' } as const,
      bankCents: 5_100,
    }
    expect(dueCents(context)).toBe(5_025)
    expect(bankUseAll(context)).toBe(5_025)
    expect(bankProblem(context)).toBe(VISIT_MESSAGES.bankMoreThanDue(5_025))
    expect(bankProblem({ ...context, preview: f.preview.preview })).toBe(VISIT_MESSAGES.noBank)
    expect(needsConsent({ ...context, bankCents: 1 })).toBe(true)
  })

  it('sends the bank with points as one redemption', () => {
    const snapshot = createActor(checkoutMachine, {
      input: { idempotencyKey: f.key, canOverride: true, patient: f.member, items: [f.product] },
    })
      .start()
      .getSnapshot()
    const request = visitRequest({
      ...snapshot.context,
      redemption: { kind: 'points', points: 50 },
      bankCents: 1_000,
    })
    expect(request.redemption).toEqual({ points: 50, bank_cents: 1_000 })
  })
})
