/**
 * The checkout's model and flow: the fixture events the real machine is walked with,
 * what tells its states apart, and a person's words. The view test (`view.test.tsx`) replays its
 * paths through the checkout screen; the browser replay (`browser.spec.ts`) replays them in
 * Chromium against the real server, and the end-to-end journeys (`tests/e2e/checkout.spec.ts`)
 * run the same screen through what the paths leave out.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import type { LedgerEntry } from '#domain/ledger.ts'
import { applyMembership, multipliedPoints } from '#domain/member-pricing.ts'
import type { ApprovalAnswer, MemberAtCheckout, VisitAnswer, VisitPreview } from '#domain/visits.ts'
import { formatDollars, VISIT_MESSAGES } from '#domain/visits.ts'
import {
  aboveCatalogue,
  allowanceLineWords,
  allowanceSentence,
  approvalReady,
  type CheckoutEvent,
  type CheckoutInput,
  type CheckoutItem,
  type CheckoutPatient,
  type CheckoutPreview,
  type ClaimedOffer,
  checkoutMachine,
  chosenValuation,
  deskCents,
  memberPriceSentence,
  needsApproval,
  needsConsent,
  redemptionProblem,
  type UndoAnswer,
} from '#machines/checkout/checkout.machine.ts'
import {
  type CallAnswers,
  type FlowSpec,
  type Model,
  nextAnswer,
  type QaPath,
  type QaStep,
  type StepPlan,
} from '#tests/mbt/index.ts'

const patient: CheckoutPatient = { id: 4, name: 'Avery Brooks' }
const procedure: CheckoutItem = {
  key: 'procedure-2',
  kind: 'procedure',
  item_id: 2,
  name: 'HydraFacial',
  quantity: 1,
  price_cents: 19_900,
  catalogue_price_cents: 19_900,
}
const product: CheckoutItem = {
  key: 'product-5',
  kind: 'product',
  item_id: 5,
  name: 'Vitamin C Serum',
  quantity: 1,
  price_cents: 18_200,
  catalogue_price_cents: 18_200,
}
/** An item's line as the server previews it, at its own price: `points` earned, or `refused` and why. */
function previewLine(
  item: CheckoutItem,
  points: number,
  refused: VisitPreview['lines'][number]['refused'] = null,
): VisitPreview['lines'][number] {
  const { kind, item_id, name, quantity, price_cents } = item
  return { kind, item_id, name, quantity, unit_price_cents: price_cents, points, refused }
}
const preview: VisitPreview = {
  lines: [
    previewLine(procedure, 0, {
      reason: VISIT_MESSAGES.earnsAgainOn('HydraFacial', '2027-01-10'),
      opens_on: '2027-01-10',
    }),
    previewLine(product, 180),
  ],
  points: 180,
  total_cents: 38_100,
  balance: 400,
  point_value_cents: 10,
  redemption_code_threshold: 100,
  max_points_per_line: 5000,
  approval_needed: [],
}
/** Vitamin C Serum typed at ten times its catalogue price: a manager approves it. */
const tenTimes = 182_000
const approvalReason = VISIT_MESSAGES.priceAboveCatalogue('Vitamin C Serum', '$1,820.00', '$182.00')
const previewApproval: VisitPreview = {
  ...preview,
  lines: preview.lines.map((line) =>
    line.kind === 'product' ? { ...line, unit_price_cents: tenTimes, points: 650 } : line,
  ),
  points: 650,
  total_cents: 19_900 + tenTimes,
  approval_needed: [approvalReason],
}
const approval: ApprovalAnswer = {
  token: 'approval-token-fixture-0123456789',
  approved_by: { id: 3, first_name: 'Morgan', last_name: 'Manager' },
  expires_at: '2026-11-25T10:15:00.000Z',
}
/**
 * The patient's claimed offer with value: $50 off HydraFacial, no bonus and no
 * points to pay. The browser replay creates it as the real server's promotion and claims it for
 * the path's patient where the path previews the appointment's HydraFacial.
 */
const offer: ClaimedOffer = { promotion_id: 2, title: 'Birthday Glow', bonus: 0, cost: 0 }
const offerWords = '$50.00 off HydraFacial'
/**
 * The appointment's HydraFacial alone, as the real server previews it for a patient who has not
 * had one (200 points, $199.00), with the claimed offer's value worked out as the server does
 * (`applyOffer`): $50.00 off the line, $149.00 to pay, 200 × 149/199 = 149 points.
 */
const previewOffer: VisitPreview = {
  ...preview,
  lines: [previewLine(procedure, 200)],
  points: 200,
  total_cents: 19_900,
  offer_values: [
    {
      promotion_id: offer.promotion_id,
      title: offer.title,
      value: offerWords,
      lines: [{ discount_cents: 5_000, points: 149 }],
      discount_cents: 5_000,
      total_cents: 14_900,
      points: 149,
      problem: null,
    },
  ],
}
const answer: VisitAnswer = {
  visit: {
    id: 31,
    patient_id: 4,
    appointment_id: null,
    total_cents: 38_100,
    created_at: '2026-11-25T10:00:00.000Z',
    undo_until: '2026-11-25T10:10:00.000Z',
    undone_at: null,
  },
  lines: preview.lines,
  entries: [],
  balance: 280,
}
/** A ledger entry of the offer's visit, posted by the desk at 10:00. */
const visitEntry = (
  id: number,
  kind: LedgerEntry['kind'],
  points: number,
  balance_after: number,
): LedgerEntry => ({
  id,
  patient_id: patient.id,
  kind,
  points,
  source_type: 'visit',
  source_id: 32,
  reason: null,
  expires_at: null,
  reverses_id: null,
  reversed_by: null,
  balance_after,
  created_by: { id: 2, first_name: 'Morgan', last_name: 'Manager' },
  created_at: '2026-11-25T10:00:00.000Z',
})
/**
 * The appointment's HydraFacial recorded with the offer and 300 points: the
 * patient pays $149.00, earns 149 points on it and redeems 300: 400 + 149 − 300 = 249.
 */
const answerOffer: VisitAnswer = {
  visit: {
    id: 32,
    patient_id: 4,
    appointment_id: 12,
    total_cents: 14_900,
    discount_cents: 5_000,
    created_at: '2026-11-25T10:00:00.000Z',
    undo_until: '2026-11-25T10:10:00.000Z',
    undone_at: null,
  },
  lines: previewOffer.lines.map((line) => ({ ...line, discount_cents: 5_000, points: 149 })),
  entries: [visitEntry(81, 'earn', 149, 549), visitEntry(82, 'redeem', -300, 249)],
  balance: 249,
}

/**
 * The member's plan: 1 HydraFacial a month included, 15% member price on the whole catalogue,
 * $100.00 banked a month, 2× points. The browser replay builds it on the demo practice.
 */
const memberPlan = {
  name: 'Glow Club',
  price_cents: 9_900,
  bank_cents: 10_000,
  discount_percent: 15,
  points_multiplier: 2,
  hydraFacials: 1,
} as const
/** A member in good standing (enrolled at the desk, first cycle paid). */
const member: CheckoutPatient = { id: 7, name: 'Maya Chen' }
/** A member whose renewal was declined: past due. */
const pastDueMember: CheckoutPatient = { id: 8, name: 'Noah Park' }
/** The lines a member's visit holds: HydraFacial and Vitamin C Serum. */
const memberItems = [procedure, product]
/** What the real server earns on the two lines for a patient who has not had them yet. */
const memberBasePoints = [200, 180]

/**
 * HydraFacial and Vitamin C Serum for a member, as the real server previews them: worked out with
 * the same pure member pricing (allowances first, then the member price, then the multiplier);
 * a past-due member's perks are on hold and flagged, the bank still pays.
 */
function memberPreview(status: 'active' | 'past_due'): VisitPreview {
  const active = status === 'active'
  const inputs = memberItems.map((item, i) => ({
    kind: item.kind,
    item_id: item.item_id,
    unit_price_cents: item.price_cents,
    quantity: item.quantity,
    points: memberBasePoints[i] ?? 0,
  }))
  const pricing = applyMembership(
    inputs,
    active
      ? {
          discount_percent: memberPlan.discount_percent,
          discount_item_ids: [],
          points_multiplier: memberPlan.points_multiplier,
          allowances: new Map([[procedure.item_id, memberPlan.hydraFacials]]),
        }
      : null,
  )
  const multiplier = active ? memberPlan.points_multiplier : 1
  const lines = memberItems.map((item, i) => {
    const line = pricing.lines[i]
    return {
      ...previewLine(item, multipliedPoints(line?.points ?? 0, multiplier)),
      allowance_units: line?.allowance_units ?? 0,
      member_discount_cents: line?.member_discount_cents ?? 0,
    }
  })
  const membership: MemberAtCheckout = {
    membership_id: active ? 21 : 22,
    plan_name: memberPlan.name,
    interval: 'month',
    status,
    perks_apply: active,
    flag: active ? null : VISIT_MESSAGES.memberPastDue(memberPlan.name),
    bank_cents: memberPlan.bank_cents,
    discount_percent: memberPlan.discount_percent,
    points_multiplier: memberPlan.points_multiplier,
    allowances: [
      {
        catalogue_item_id: procedure.item_id,
        name: procedure.name,
        per_cycle: memberPlan.hydraFacials,
        remaining: memberPlan.hydraFacials,
        used: pricing.allowances_used.get(procedure.item_id) ?? 0,
      },
    ],
    allowance_cents: pricing.allowance_cents,
    member_discount_cents: pricing.member_discount_cents,
  }
  return {
    lines,
    points: lines.reduce((sum, line) => sum + line.points, 0),
    total_cents: pricing.lines.reduce((sum, line) => sum + line.net_cents, 0),
    subtotal_cents: memberItems.reduce((sum, item) => sum + item.price_cents * item.quantity, 0),
    membership,
    balance: preview.balance,
    point_value_cents: preview.point_value_cents,
    redemption_code_threshold: preview.redemption_code_threshold,
    max_points_per_line: preview.max_points_per_line,
    approval_needed: [],
    offer_values: [],
  }
}
const previewMember = memberPreview('active')
const previewPastDue = memberPreview('past_due')
/** What the desk pays from the member's bank: $25.00 of the $100.00. */
const bankPay = 2_500
/** The member's visit recorded: HydraFacial included, the serum at the member price, $25 from the bank. */
const answerMember: VisitAnswer = {
  visit: {
    id: 33,
    patient_id: member.id,
    appointment_id: null,
    total_cents: previewMember.total_cents,
    discount_cents: 0,
    allowance_cents: previewMember.membership?.allowance_cents ?? 0,
    member_discount_cents: previewMember.membership?.member_discount_cents ?? 0,
    bank_cents: bankPay,
    created_at: '2026-11-25T10:00:00.000Z',
    undo_until: '2026-11-25T10:10:00.000Z',
    undone_at: null,
  },
  lines: previewMember.lines,
  entries: [
    {
      ...visitEntry(83, 'earn', previewMember.points, preview.balance + previewMember.points),
      patient_id: member.id,
      source_id: 33,
    },
  ],
  balance: preview.balance + previewMember.points,
  membership_bank_cents: memberPlan.bank_cents - bankPay,
}
/** The undo of the member's visit: the points reversed, the bank and the allowance put back. */
const undoneMember: UndoAnswer = {
  balance: preview.balance,
  membership_bank_cents: memberPlan.bank_cents,
}

/** What the desk enters and what the fake server answers. */
export const checkoutFixtures = {
  key: 'web-checkout-fixture-key',
  patient,
  procedure,
  product,
  previewLine,
  appointmentId: 12,
  /** The preview of HydraFacial (not earning yet) and Vitamin C Serum; no offer claimed. */
  preview: { preview, offers: [] } satisfies CheckoutPreview,
  /** The preview of the lines with the price ten times the catalogue's. */
  previewApproval: { preview: previewApproval, offers: [] } satisfies CheckoutPreview,
  /** The preview of the appointment's HydraFacial alone, with the claimed offer's value. */
  previewOffer: { preview: previewOffer, offers: [offer] } satisfies CheckoutPreview,
  tenTimes,
  approvalReason,
  approval,
  /** The approval step's fields: a reason, and (Staff) the demo manager signing in. */
  approvalFields: {
    reason: 'Package price agreed with the owner.',
    email: 'manager@example.com',
    password: 'ManagerPass123',
  },
  offer,
  /** The offer's value in the server's words. */
  offerWords,
  answer,
  /** The visit recorded with the offer (and points as well). */
  answerOffer,
  /** Points below the programme's threshold (100): no code. */
  fewPoints: 50,
  /** Points above it: the patient's code or an override. */
  manyPoints: 300,
  /** More than the patient has. */
  tooManyPoints: 9_000,
  code: '123456',
  reason: 'The patient left their phone at home.',
  authyId: 'rc-0123456789',
  previewFailed: 'Vitamin C Serum is archived: restore it in the catalogue to sell it.',
  codeTooSoon: VISIT_MESSAGES.codeTooSoon(20),
  timeout: 'The server is taking too long to answer. Please try again.',
  undoFailed: 'The server could not be reached. Check your connection and try again.',
  undoneBalance: 400,
  memberPlan,
  member,
  pastDueMember,
  /** The preview of HydraFacial (included) and Vitamin C Serum (member price) for a member. */
  previewMember: { preview: previewMember, offers: [] } satisfies CheckoutPreview,
  /** The same lines for a past-due member: no perks, the flag, the bank. */
  previewPastDue: { preview: previewPastDue, offers: [] } satisfies CheckoutPreview,
  bankPay,
  answerMember,
  undoneMember,
} as const

/** Events of the graph: the desk's, the four calls' answers and the two delays. */
export type CheckoutModelEvent =
  | CheckoutEvent
  | CallAnswers<'previewVisit', CheckoutPreview>
  | CallAnswers<'sendCode', { authyId: string }>
  | CallAnswers<'checkCode', { valid: true }>
  | CallAnswers<'approveVisit', ApprovalAnswer>
  | CallAnswers<'recordVisit', VisitAnswer>
  | CallAnswers<'undoVisit', UndoAnswer>
  | { type: 'xstate.after.resendCooldown.checkout.consent.code.sent.coolingDown' }
  | { type: 'xstate.after.undoWindow.checkout.done.undoable' }

const f = checkoutFixtures

/** Every event with fixture payloads. */
export const checkoutEvents: CheckoutModelEvent[] = [
  { type: 'patient.choose', patient: f.patient },
  { type: 'patient.change' },
  { type: 'item.add', item: f.procedure },
  { type: 'item.add', item: f.product },
  { type: 'item.change', key: f.product.key, quantity: 2, price_cents: 6_000 },
  { type: 'item.change', key: f.product.key, quantity: 1, price_cents: f.tenTimes },
  { type: 'item.remove', key: f.procedure.key },
  { type: 'items.submit' },
  { type: 'items.edit' },
  { type: 'redemption.choose', redemption: { kind: 'none' } },
  { type: 'redemption.choose', redemption: { kind: 'points', points: f.fewPoints } },
  { type: 'redemption.choose', redemption: { kind: 'points', points: f.manyPoints } },
  { type: 'redemption.choose', redemption: { kind: 'points', points: f.tooManyPoints } },
  {
    type: 'redemption.choose',
    redemption: {
      kind: 'promotion',
      promotion_id: f.offer.promotion_id,
      title: f.offer.title,
      points: f.manyPoints,
    },
  },
  { type: 'bank.change', cents: f.bankPay },
  { type: 'bank.useAll' },
  { type: 'review.submit' },
  { type: 'code.send' },
  { type: 'code.change', code: f.code.slice(0, 3) },
  { type: 'code.change', code: f.code },
  { type: 'consent.useOverride' },
  { type: 'consent.useCode' },
  { type: 'override.change', reason: f.reason },
  { type: 'consent.submit' },
  { type: 'consent.back' },
  { type: 'confirm.back' },
  { type: 'approval.change', fields: f.approvalFields },
  { type: 'approval.submit' },
  { type: 'approval.back' },
  { type: 'visit.confirm' },
  { type: 'visit.undo' },
  { type: 'xstate.done.actor.previewVisit', output: f.preview },
  { type: 'xstate.done.actor.previewVisit', output: f.previewApproval },
  { type: 'xstate.done.actor.previewVisit', output: f.previewOffer },
  { type: 'xstate.done.actor.previewVisit', output: f.previewMember },
  { type: 'xstate.done.actor.previewVisit', output: f.previewPastDue },
  { type: 'xstate.error.actor.previewVisit', error: new Error(f.previewFailed) },
  { type: 'xstate.done.actor.sendCode', output: { authyId: f.authyId } },
  { type: 'xstate.error.actor.sendCode', error: new Error(f.codeTooSoon) },
  { type: 'xstate.done.actor.checkCode', output: { valid: true } },
  { type: 'xstate.error.actor.checkCode', error: new Error(VISIT_MESSAGES.codeIncorrect) },
  { type: 'xstate.error.actor.checkCode', error: new Error(VISIT_MESSAGES.codeAttempts) },
  { type: 'xstate.done.actor.approveVisit', output: f.approval },
  { type: 'xstate.error.actor.approveVisit', error: new Error(VISIT_MESSAGES.approverCredentials) },
  { type: 'xstate.done.actor.recordVisit', output: f.answer },
  { type: 'xstate.done.actor.recordVisit', output: f.answerOffer },
  { type: 'xstate.done.actor.recordVisit', output: f.answerMember },
  { type: 'xstate.error.actor.recordVisit', error: new Error(VISIT_MESSAGES.codeAttempts) },
  { type: 'xstate.error.actor.recordVisit', error: new Error(f.timeout) },
  { type: 'xstate.done.actor.undoVisit', output: f.undoneMember },
  { type: 'xstate.error.actor.undoVisit', error: new Error(f.undoFailed) },
  { type: 'xstate.error.actor.undoVisit', error: new Error(VISIT_MESSAGES.undoWindowPassed) },
  { type: 'xstate.after.resendCooldown.checkout.consent.code.sent.coolingDown' },
  { type: 'xstate.after.undoWindow.checkout.done.undoable' },
]

/** What the screen shows and the guards read; typed text only as valid or not. */
export function checkoutSignature(snapshot: AnyMachineSnapshot): string {
  const c = snapshot.context as ReturnType<typeof checkoutMachine.getInitialSnapshot>['context']
  return JSON.stringify({
    value: snapshot.value,
    patient: c.patient !== null,
    items: c.items.map((item) => item.key),
    above: c.items.some(aboveCatalogue),
    preview: c.preview !== null,
    approvalNeeded: (c.preview?.approval_needed.length ?? 0) > 0,
    approval: c.approval !== null,
    approvalReady: approvalReady(c),
    redemption: c.redemption,
    member: c.preview?.membership?.status ?? null,
    bank: c.bankCents,
    code: c.authyId !== null,
    codeValid: /^\d{6}$/.test(c.code),
    reason: c.reason.trim() !== '',
    consent: c.consent?.kind ?? null,
    error: c.error,
  })
}

const patientWords = `${f.patient.name}`

/** Whether the visit is the appointment's HydraFacial alone (what the offer applies to). */
const hydraAlone = (items: readonly CheckoutItem[]) =>
  items.length === 1 && items[0]?.key === f.procedure.key

/**
 * What the screen shows of the chosen offer's value in this state, in the server's numbers: the
 * discount per line and the new total and points (step Points), the total to pay and the points
 * earned (step Confirm), what the offer took off (the recorded visit); nothing without an offer
 * with value.
 */
export function offerValueSeen(snapshot: AnyMachineSnapshot): string[] {
  const c = snapshot.context as ReturnType<typeof checkoutMachine.getInitialSnapshot>['context']
  const discount = c.result?.visit.discount_cents ?? 0
  const recorded = snapshot.matches({ done: 'undoable' }) || snapshot.matches({ done: 'closed' })
  if (recorded && discount > 0 && c.result) {
    return [
      `“The offer took ${formatDollars(discount)} off: the visit comes to ${formatDollars(c.result.visit.total_cents)}.”`,
    ]
  }
  const valuation = chosenValuation(c)
  if (!valuation || valuation.problem || !c.preview) return []
  if (snapshot.matches('reviewing')) {
    const lines = c.preview.lines.flatMap((line, index) => {
      const discount = valuation.lines[index]?.discount_cents ?? 0
      if (discount <= 0) return []
      const pays = line.unit_price_cents * line.quantity - discount
      return [
        `under ${line.name} “Offer: −${formatDollars(discount)}, pays ${formatDollars(pays)}”`,
      ]
    })
    return [
      ...lines,
      `“With ${valuation.value}, this visit costs ${formatDollars(valuation.total_cents)} instead of ${formatDollars(c.preview.total_cents)} and earns ${valuation.points} points.”`,
    ]
  }
  if (snapshot.matches('confirming')) {
    return [
      `the Total ${formatDollars(valuation.total_cents)} (${valuation.value}) and “Points earned: ${valuation.points} points”`,
    ]
  }
  return []
}

/**
 * What the screen shows of the membership in this state, in the server's numbers: at the review
 * the flag first (perks on hold), the plan, its status and bank, each line's included units and
 * member price, the totals and what is due at the desk; the code step's amount; what the
 * confirm step lists; what the recorded visit used and what the undo put back.
 */
export function memberSeen(snapshot: AnyMachineSnapshot): string[] {
  const c = snapshot.context as Context
  const membership = c.preview?.membership
  if (!membership || !c.preview) return []
  const bank = formatDollars(c.bankCents)
  if (snapshot.matches('reviewing')) {
    const seen = [
      ...(membership.flag ? [`first, the warning “${membership.flag}”`] : []),
      `the membership: ${membership.plan_name}, ${membership.perks_apply ? 'Active' : 'Past due'}, “Bank: ${formatDollars(membership.bank_cents)}”`,
    ]
    c.preview.lines.forEach((line, index) => {
      const allowance = (line.allowance_units ?? 0) > 0 ? membership.allowances[0] : undefined
      if (allowance) {
        seen.push(
          `under ${line.name} “Included with the membership: ${allowanceLineWords(allowance, membership.interval)}” and its price struck to $0.00`,
        )
      }
      const price = memberPriceSentence(membership, line)
      if (price) seen.push(`under ${line.name} “${price}”`)
      if (membership.perks_apply && (c.preview?.lines[index]?.points ?? 0) > 0) {
        seen.push(`next to its points “${membership.points_multiplier}× member points”`)
      }
    })
    seen.push(
      `the totals: Subtotal ${formatDollars(c.preview.subtotal_cents ?? 0)}${membership.allowance_cents > 0 ? `, Included with the membership −${formatDollars(membership.allowance_cents)}` : ''}${membership.member_discount_cents > 0 ? `, Member price −${formatDollars(membership.member_discount_cents)}` : ''}, Paid from the membership bank ${c.bankCents > 0 ? bank : '(empty)'} with Use all, Due at the desk ${formatDollars(deskCents(c))}`,
    )
    return seen
  }
  if (snapshot.matches('consent') && c.bankCents > 0) {
    return [`“The text message names the amount: ${bank} from the membership bank.”`]
  }
  if (snapshot.matches('confirming') && c.bankCents > 0) {
    return [
      ...membership.allowances
        .filter((a) => a.used > 0)
        .map((a) => `“Uses ${allowanceSentence(a, membership.interval)}.”`),
      `Paid from the membership bank −${bank} and Due at the desk ${formatDollars(deskCents(c))}`,
    ]
  }
  const result = c.result
  const recorded = snapshot.matches({ done: 'undoable' }) || snapshot.matches({ done: 'closed' })
  if (recorded && result?.visit.bank_cents) {
    return [
      `“Paid from the membership bank: ${formatDollars(result.visit.bank_cents)} · bank now ${formatDollars(result.membership_bank_cents ?? 0)}.”`,
    ]
  }
  if (snapshot.matches('undone') && result?.visit.bank_cents) {
    return [
      `“${formatDollars(result.visit.bank_cents)} went back to the membership bank: bank now ${formatDollars(c.undoneBank ?? 0)}.” and the included HydraFacial can be used again`,
    ]
  }
  return []
}

/** What the browser replay sets up through the API before each path. */
const SETUP = `(The browser replay gives each path a patient of its own with a phone and ${f.preview.preview.balance} points, and an appointment for HydraFacial where one is completed; it sets the programme's code threshold to ${f.preview.preview.redemption_code_threshold} points for the path, as the model's preview has it.)`

const states: Record<string, string> = {
  'checkout.choosingPatient':
    'You see: step Patient with the Patient search box; nothing else to fill yet',
  'checkout.editingItems':
    'You see: step Items for the patient: the lines with Quantity and Unit price, Add a procedure and Add a product, and See points (enabled with at least one line)',
  'checkout.previewing': 'You see: See points is busy',
  'checkout.reviewing':
    'You see: step Points: each line with the points it earns (a refused line says when it earns points again), the total, the balance, and Redeem: Nothing, Points or a claimed offer (with its value); with an offer with value chosen, each line it lowers says what it takes off and what the line pays, and the visit says what it costs instead and the points it earns on that; for a member, the membership first (a flag when its perks are on hold), what it takes off each line, the totals down to Due at the desk and the Paid from the membership bank field with Use all; Continue',
  'checkout.approval.editing':
    "You see: step Points, “A manager's approval”: the reason the lines need it, the Reason for the approval field and, for Staff, the Manager's e-mail and Manager's password; Back and Approve (enabled once filled)",
  'checkout.approval.requesting': 'You see: Approve is busy',
  'checkout.consent.code.checking':
    'You see: the SMS code field says “Checking the code…” and Continue is busy',
  'checkout.consent.code.idle':
    "You see: step Consent: the redemption needs the patient's code; Get code (and, for a Manager or Admin, Use a manager override)",
  'checkout.consent.code.sending': 'You see: Get code is busy',
  'checkout.consent.code.sent.coolingDown':
    'You see: the SMS code field, Continue, and Resend code disabled with the seconds left',
  'checkout.consent.code.sent.resendReady':
    'You see: the SMS code field, Continue, and Resend code enabled',
  'checkout.consent.override':
    'You see: the Reason for the override field, Continue, and Use the patient’s code instead',
  'checkout.confirming':
    'You see: step Confirm: the summary of the lines (with the offer’s discount under a line it lowers), the total to pay, points earned, the redemption and the new balance; Back and Confirm visit',
  'checkout.submitting': 'You see: Confirm visit is busy; a second click does nothing',
  'checkout.done.undoable':
    'You see: "Visit recorded", the points earned and redeemed, the new balance (and what a redeemed offer took off and what the visit comes to), Undo visit, Open the patient’s profile and Record another visit',
  'checkout.done.undoing': 'You see: Undo visit is busy',
  'checkout.done.closed':
    'You see: "Visit recorded" without Undo visit: the 10 minutes have passed',
  'checkout.undone':
    'You see: "Visit undone" with the balance after the reversals (and, for a member, what went back to the bank and the included treatments that can be used again)',
}

function redemptionWords(event: Extract<CheckoutEvent, { type: 'redemption.choose' }>) {
  const r = event.redemption
  if (r.kind === 'none') return 'Choose Redeem: Nothing'
  if (r.kind === 'points') return `Choose Redeem: Points and type ${r.points} points`
  const offer = `Choose Redeem: ${r.title} (claimed offer, ${f.offerWords})`
  return r.points ? `${offer} and type ${r.points} in Points to redeem as well` : offer
}

function describeEvent(event: EventObject): string {
  const e = event as CheckoutModelEvent
  switch (e.type) {
    case 'patient.choose':
      return `Search "Avery" and choose ${patientWords}`
    case 'patient.change':
      return 'Click Change patient'
    case 'item.add':
      return e.item.kind === 'procedure'
        ? `Choose ${e.item.name} in Add a procedure`
        : `Choose ${e.item.name} in Add a product`
    case 'item.change':
      return `Set the quantity of ${f.product.name} to ${e.quantity} and its unit price to $${(e.price_cents / 100).toFixed(2)}${e.price_cents > f.product.price_cents ? ` (ten times the catalogue's: the line says "a manager's approval will be needed")` : ''}`
    case 'item.remove':
      return `Click Remove ${f.procedure.name}`
    case 'items.submit':
      return 'Click See points'
    case 'items.edit':
      return 'Click Edit items'
    case 'redemption.choose':
      return redemptionWords(e)
    case 'bank.change':
      return `Type ${formatDollars(e.cents).slice(1)} in Paid from the membership bank`
    case 'bank.useAll':
      return 'Click Use all next to Paid from the membership bank'
    case 'review.submit':
      return 'Click Continue'
    case 'code.send':
      return 'Click Get code (or Resend code)'
    case 'code.change':
      return e.code.length < 6
        ? 'Type the first 3 digits of the code from the patient’s phone'
        : `Type the code from the patient's phone (${f.code}): its sixth digit checks it`
    case 'consent.useOverride':
      return 'Click Use a manager override'
    case 'consent.useCode':
      return 'Click Use the patient’s code instead'
    case 'override.change':
      return `Type the reason "${f.reason}"`
    case 'consent.submit':
      return 'Click Continue'
    case 'consent.back':
    case 'confirm.back':
      return 'Click Back'
    case 'visit.confirm':
      return 'Click Confirm visit'
    case 'approval.change':
      return `Type the reason "${e.fields.reason}" (as Staff, also the Manager's e-mail ${e.fields.email} and password ${e.fields.password})`
    case 'approval.submit':
      return 'Click Approve'
    case 'approval.back':
      return 'Click Back'
    case 'visit.undo':
      return 'Click Undo visit and confirm in the dialog'
    case 'xstate.done.actor.previewVisit':
      if (e.output.preview.approval_needed.length > 0) {
        return `The server previews ${e.output.preview.points} points and asks for a manager's approval: "${e.output.preview.approval_needed[0]}"`
      }
      if (e.output.preview.membership) {
        const m = e.output.preview.membership
        return m.perks_apply
          ? `The server previews the member's visit: HydraFacial included (1 of 1 this month), Vitamin C Serum at the member price (−${formatDollars(m.member_discount_cents)}), ${e.output.preview.points} points at ${m.points_multiplier}×, ${formatDollars(e.output.preview.total_cents)} to pay; the bank holds ${formatDollars(m.bank_cents)}`
          : `The server previews the visit at full price, ${formatDollars(e.output.preview.total_cents)}, and flags the membership: "${m.flag}"; the bank holds ${formatDollars(m.bank_cents)}`
      }
      if (e.output.offers.length > 0) {
        return `The server previews ${e.output.preview.points} points for ${formatDollars(e.output.preview.total_cents)} and the patient's claimed offer ${f.offer.title}: ${f.offerWords}`
      }
      return `The server previews ${preview.points} points; HydraFacial earns none: "${preview.lines[0]?.refused?.reason}"`
    case 'xstate.done.actor.approveVisit':
      return 'The server approves the lines (the reason is kept with the visit and in the activity log)'
    case 'xstate.done.actor.checkCode':
      return 'The server finds the code right (nothing is used yet)'
    case 'xstate.done.actor.sendCode':
      return "The server texts a code to the patient's phone"
    case 'xstate.done.actor.recordVisit':
      if (e.output.visit.bank_cents) {
        return `The server records the visit: the included HydraFacial and the member price used, ${formatDollars(e.output.visit.bank_cents)} paid from the bank (${formatDollars(e.output.membership_bank_cents ?? 0)} left), ${e.output.entries.find((entry) => entry.kind === 'earn')?.points ?? 0} points earned`
      }
      return e.output.visit.discount_cents
        ? `The server records the visit: ${formatDollars(e.output.visit.total_cents)} to pay, ${e.output.entries.find((entry) => entry.kind === 'earn')?.points ?? 0} points earned and ${f.manyPoints} redeemed`
        : 'The server records the visit'
    case 'xstate.done.actor.undoVisit':
      return e.output.membership_bank_cents != null
        ? `The server posts the reversals and puts back the bank (${formatDollars(e.output.membership_bank_cents)}) and the included HydraFacial`
        : 'The server posts the reversals'
    // Every call but the undo is refused in the same words, with the server's message.
    case 'xstate.error.actor.approveVisit':
    case 'xstate.error.actor.checkCode':
    case 'xstate.error.actor.previewVisit':
    case 'xstate.error.actor.sendCode':
    case 'xstate.error.actor.recordVisit':
      return `The server refuses: you see "${e.error.message}"`
    case 'xstate.error.actor.undoVisit':
      return `The undo fails: you see "${e.error.message}"`
    case 'xstate.after.resendCooldown.checkout.consent.code.sent.coolingDown':
      return '30 seconds pass'
    case 'xstate.after.undoWindow.checkout.done.undoable':
      return '10 minutes pass'
    default:
      return ''
  }
}

const start = (extra: Partial<CheckoutInput>): CheckoutInput => ({
  idempotencyKey: f.key,
  canOverride: true,
  ...extra,
})

/** Whether the checkout is for one of the members (the member scenarios). */
function isMember(patient: CheckoutPatient | null): boolean {
  return patient?.id === f.member.id || patient?.id === f.pastDueMember.id
}

type Context = ReturnType<typeof checkoutMachine.getInitialSnapshot>['context']

/**
 * What a member's checkout allows, or undefined where the general rules decide. Keeps the graph
 * small: a member's visit holds HydraFacial and Vitamin C Serum as the catalogue prices them, the
 * server answers without failing, and the desk pays from the bank rather than redeeming points:
 * the member in good standing types an amount (the code step, confirm, done and the undo follow);
 * the past-due member is flagged and the desk uses all of the bank, without going on.
 */
function memberAllows(c: Context, e: CheckoutModelEvent): boolean | undefined {
  const pastDue = c.patient?.id === f.pastDueMember.id
  if (e.type.startsWith('xstate.error.') || e.type.startsWith('xstate.after.')) return false
  switch (e.type) {
    case 'item.add':
      return !c.items.some((i: CheckoutItem) => i.key === e.item.key)
    case 'patient.change':
    case 'item.change':
    case 'item.remove':
    case 'items.edit':
    case 'redemption.choose':
    case 'consent.back':
    case 'confirm.back':
      return false
    case 'items.submit':
      return memberItems.every((item) => c.items.some((i: CheckoutItem) => i.key === item.key))
    case 'xstate.done.actor.previewVisit':
      return e.output === (pastDue ? f.previewPastDue : f.previewMember)
    case 'bank.change':
      return !pastDue && c.bankCents !== e.cents
    case 'bank.useAll':
      return pastDue && c.bankCents === 0
    case 'review.submit':
      return !pastDue && c.bankCents > 0 && redemptionProblem(c) === null
    case 'code.change':
      return e.code.length === 6 && !/^\d{6}$/.test(c.code)
    case 'xstate.done.actor.recordVisit':
      return e.output === f.answerMember
    default:
      return undefined
  }
}

/** The checkout's model. */
export const checkoutModel: Model = {
  name: 'checkout',
  title: 'Checkout',
  source: {
    file: 'machines/checkout/checkout.machine.ts',
    name: 'checkoutMachine',
    doc: 'checkout',
  },
  machine: checkoutMachine,
  events: checkoutEvents,
  scenarios: [
    { name: 'Open Checkout at /checkout as a Manager', input: start({}) },
    {
      name: 'Complete an appointment as a Manager',
      input: start({
        patient: f.patient,
        appointment: { id: f.appointmentId, item: f.procedure },
      }),
    },
    {
      name: 'Record visit from the profile as Staff',
      input: start({ patient: f.patient, canOverride: false }),
    },
    {
      name: "Record visit from a member's profile as Staff",
      input: start({ patient: f.member, canOverride: false }),
    },
    {
      name: "Record visit from a past-due member's profile as Staff",
      input: start({ patient: f.pastDueMember, canOverride: false }),
    },
  ],
  signature: checkoutSignature,
  allows: (snapshot, event) => {
    const c = snapshot.context
    const e = event as CheckoutModelEvent
    const memberVisit = isMember(c.patient)
    if (memberVisit) {
      const allowed = memberAllows(c, e)
      if (allowed !== undefined) return allowed
    }
    // The member's previews and visit are the member scenarios' only.
    if (
      (e.type === 'xstate.done.actor.previewVisit' &&
        (e.output === f.previewMember || e.output === f.previewPastDue)) ||
      (e.type === 'xstate.done.actor.recordVisit' && e.output === f.answerMember)
    ) {
      return false
    }
    // The paths undo a visit paid from the bank, whose undo puts the most back (points, the
    // bank, the included treatment); the undo's failures are tried on any visit.
    if (e.type === 'xstate.done.actor.undoVisit') return (c.result?.visit.bank_cents ?? 0) > 0
    // The screen offers only what the patient claimed, and adds a line the visit does not hold
    // yet (a second choice of the same item raises its quantity, which the graph does not tell).
    if (e.type === 'item.add') return !c.items.some((i: CheckoutItem) => i.key === e.item.key)
    // Keeps the graph small: a visit that needs an approval redeems nothing.
    if (e.type === 'redemption.choose' && needsApproval(c)) return false

    // The claimed offer is on the screen only where the server lists it (the appointment's
    // HydraFacial); there the desk redeems it, with points as well, rather than points alone:
    // keeps the graph small, and the paths that redeem show the offer's value.
    if (e.type === 'redemption.choose' && e.redemption.kind !== 'none') {
      const claimed = c.offers.some((o: ClaimedOffer) => o.promotion_id === f.offer.promotion_id)
      if ((e.redemption.kind === 'promotion') !== claimed) return false
    }
    // A refused redemption stays on the screen with its reason; a second one is no new state.
    if (e.type === 'redemption.choose') {
      return JSON.stringify(e.redemption) !== JSON.stringify(c.redemption)
    }
    // The server records the offer's visit with its discount, any other visit as it is.
    if (e.type === 'xstate.done.actor.recordVisit') {
      return (e.output === f.answerOffer) === (c.redemption.kind === 'promotion')
    }
    // The graph tries a used-up code only when a code was needed (the error's own branch).
    if (e.type === 'xstate.error.actor.recordVisit' && e.error.message !== f.timeout) {
      return c.consent?.kind === 'code'
    }
    // The server asks for an approval exactly when a price is above the catalogue's, and lists
    // the patient's offer (claimed for the replay's HydraFacial appointment) with the value it
    // has on the appointment's HydraFacial alone.
    if (e.type === 'xstate.done.actor.previewVisit') {
      return (
        e.output.preview.approval_needed.length > 0 === c.items.some(aboveCatalogue) &&
        (e.output === f.previewOffer) === hydraAlone(c.items)
      )
    }
    if (e.type === 'approval.change') return !approvalReady(c)
    // A code already found right is not wrong when checked again.
    if (
      e.type === 'xstate.error.actor.checkCode' &&
      e.error.message === VISIT_MESSAGES.codeIncorrect
    ) {
      return c.consent?.kind !== 'code'
    }
    // The replay archives Vitamin C Serum while See points waits: the visit must hold it.
    if (e.type === 'xstate.error.actor.previewVisit') {
      return c.items.some((i: CheckoutItem) => i.key === f.product.key)
    }
    // Only a manager signing in at the desk (for Staff) can type a wrong password.
    if (e.type === 'xstate.error.actor.approveVisit') return !c.canApprove
    // Half a code first (nothing is checked yet), or the whole code (checked at once).
    if (e.type === 'code.change') return e.code.length < 6 ? c.code === '' : !/^\d{6}$/.test(c.code)
    if (e.type === 'override.change') return c.reason.trim() === ''
    // Keeps the graph small: the invalid amount is checked against Continue only.
    if (e.type === 'review.submit') return redemptionProblem(c) === null
    if (e.type === 'consent.useOverride') return needsConsent(c)
    return true
  },
  states,
  describeEvent,
}

function step(path: QaPath, i: number): StepPlan {
  const { event } = path.steps[i] as QaStep
  if (event.type === 'xstate.error.actor.previewVisit') {
    return {
      note: 'Meanwhile a manager archives Vitamin C Serum in Procedures (Products tab).',
    }
  }
  if (event.type === 'code.change') {
    const answer = nextAnswer(path, i, 'checkCode') as { error?: Error } | undefined
    if (answer?.error?.message === VISIT_MESSAGES.codeIncorrect) {
      return { text: "Type a code other than the one in the patient's text message" }
    }
  }
  if (event.type === 'approval.change') {
    const answer = nextAnswer(path, i, 'approveVisit') as { error?: Error } | undefined
    if (answer?.error) {
      return {
        text: `Type the reason "${f.approvalFields.reason}", the Manager's e-mail ${f.approvalFields.email} and a wrong password`,
      }
    }
  }
  if (event.type === 'xstate.error.actor.checkCode') {
    const message = (event as unknown as { error: Error }).error.message
    if (message === VISIT_MESSAGES.codeAttempts) {
      return {
        note: 'Meanwhile five wrong codes are tried with this code (the replay posts them while the check waits).',
      }
    }
  }
  if (event.type === 'xstate.error.actor.sendCode') {
    return {
      note: 'Meanwhile another desk has the patient texted a code (less than 30 seconds ago).',
    }
  }
  if (event.type === 'xstate.after.resendCooldown.checkout.consent.code.sent.coolingDown') {
    return {
      note: "The replay moves the browser's clock on by 30 seconds instead of waiting; the server's clock keeps its own time.",
    }
  }
  if (event.type === 'xstate.error.actor.recordVisit') {
    const message = (event as unknown as { error: Error }).error.message
    if (message === f.timeout) {
      return {
        intercepted:
          'a server that does not answer in 15 seconds cannot be arranged with the real server; the end-to-end journey holds the request past the timeout and replays it.',
      }
    }
    if (message === VISIT_MESSAGES.codeAttempts) {
      return {
        note: 'Meanwhile five wrong codes are tried with this code (the replay posts them while Confirm visit waits).',
      }
    }
  }
  if (event.type === 'xstate.error.actor.undoVisit') {
    const message = (event as unknown as { error: Error }).error.message
    return {
      intercepted:
        message === VISIT_MESSAGES.undoWindowPassed
          ? 'the real server refuses an undo only 10 minutes after the visit, longer than a replay waits.'
          : 'the real server cannot be made unreachable for one call.',
    }
  }
  if (event.type === 'xstate.after.undoWindow.checkout.done.undoable') {
    return {
      note: "Wait 10 minutes (the view test advances its clock; the browser replay moves the browser's clock on).",
    }
  }
  return {}
}

/** Whether the path previews the appointment's HydraFacial with the patient's claimed offer. */
export function previewsOffer(path: QaPath): boolean {
  return path.steps.some(
    (step) =>
      step.event.type === 'xstate.done.actor.previewVisit' &&
      (step.event as CheckoutModelEvent & { output: CheckoutPreview }).output.offers.length > 0,
  )
}

/** Which member a path checks out: the one in good standing, the past-due one, or none. */
export function memberScenario(path: QaPath): 'member' | 'pastDue' | null {
  const patient = (path.input as CheckoutInput).patient
  if (patient?.id === f.member.id) return 'member'
  if (patient?.id === f.pastDueMember.id) return 'pastDue'
  return null
}

/** The checkout flow. */
export const checkoutFlow: FlowSpec = {
  id: 'checkout',
  title: 'Checkout',
  intro:
    'The front desk’s checkout at /checkout: the patient, the items, the points the server previews, an optional redemption with the patient’s SMS code or a manager’s override, confirm, and Undo for 10 minutes.',
  viewTest: 'tests/flows/checkout/view.test.tsx',
  // Replayed in Chromium by browser.spec.ts; the real server's other journeys are in
  // tests/e2e/checkout.spec.ts (a double submit, a reload, the keyboard, 390 px, Staff).
  browser: true,
  sections: [
    {
      key: 'checkout',
      model: checkoutModel,
      title: 'Checkout',
      intro: 'Paths of the checkout machine: each step, each call’s answer and failure.',
      host: () => 'local',
      start: (path) =>
        `${
          memberScenario(path) === 'member'
            ? `As a Staff member, open ${f.member.name}'s profile and click Record visit. (The browser replay gives the path a patient of its own with a phone and ${f.preview.preview.balance} points, enrolled through the API in ${f.memberPlan.name}: 1 HydraFacial a month included, ${f.memberPlan.discount_percent}% member price, ${formatDollars(f.memberPlan.bank_cents)} banked a month, ${f.memberPlan.points_multiplier}× points; the first month is paid.)`
            : memberScenario(path) === 'pastDue'
              ? `As a Staff member, open ${f.pastDueMember.name}'s profile and click Record visit. (The browser replay enrols the path's own patient in ${f.memberPlan.name} as for a member, then puts a card that declines on file and moves the billing clock past the renewal: the renewal is declined and the membership is past due; the first month's ${formatDollars(f.memberPlan.bank_cents)} stays in the bank.)`
              : ''
        }${
          memberScenario(path) !== null
            ? ''
            : path.modelScenario.startsWith('Complete')
              ? `As the demo Admin, open Appointments and click Complete on ${patientWords}'s HydraFacial appointment.`
              : path.modelScenario.startsWith('Record')
                ? `As a Staff member, open ${patientWords}'s profile and click Record visit.`
                : 'As the demo Manager (manager@example.com), open /checkout.'
        }${memberScenario(path) !== null ? '' : ` ${SETUP}`}${
          previewsOffer(path)
            ? ` (The patient has claimed the offer “${f.offer.title}”, ${f.offerWords}: the browser replay creates it as a promotion of the path's own, publishes it and claims it for the patient.)`
            : ''
        }`,
      step,
      extras: (path, i) => [
        ...offerValueSeen((path.steps[i] as QaStep).state),
        ...memberSeen((path.steps[i] as QaStep).state),
      ],
    },
  ],
}
