import { and, assign, fromPromise, not, setup } from 'xstate'
import { pointsText } from '#domain/points.ts'
import type {
  ApprovalAnswer,
  ApprovalRequest,
  MemberAtCheckout,
  OfferValuation,
  VisitAnswer,
  VisitInput,
  VisitPreview,
  VisitPreviewInput,
} from '#domain/visits.ts'
import { codeNeeded, formatDollars, VISIT_MESSAGES } from '#domain/visits.ts'
import { errorMessage } from '#machines/phone-verification/error-message.ts'

/** How long a new code waits after the last one (30 s resend gap). */
export const CODE_RESEND_MS = 30_000

/** The patient a checkout is for. */
export type CheckoutPatient = { id: number; name: string }

/** One line of the visit as the desk edits it; `key` is `procedure-3` or `product-7`. */
export type CheckoutItem = {
  key: string
  kind: 'procedure' | 'product'
  item_id: number
  name: string
  quantity: number
  /** The unit price in cents, editable at the desk. */
  price_cents: number
  /** The catalogue's unit price: a price above it needs a manager's approval. */
  catalogue_price_cents?: number
}

/**
 * A promotion the patient claimed and may redeem at this visit: its bonus and the points it
 * costs, and for an offer with value what the server says it does to these lines.
 */
export type ClaimedOffer = {
  promotion_id: number
  title: string
  bonus: number
  cost: number
  value?: OfferValuation | null
}

/**
 * What the visit redeems: nothing, a number of points, or a claimed promotion, with points for a
 * reward as well (an offer and points at the same visit).
 */
export type CheckoutRedemption =
  | { kind: 'none' }
  | { kind: 'points'; points: number }
  | { kind: 'promotion'; promotion_id: number; title: string; points?: number }

/** The preview step's answer: the server's points preview and the patient's claimed offers. */
export type CheckoutPreview = { preview: VisitPreview; offers: ClaimedOffer[] }

/** How the patient agreed to a redemption that needs it. */
export type CheckoutConsent = { kind: 'code' } | { kind: 'override' }

/** Where a checkout starts: a patient (from the profile), an appointment, or nothing. */
export type CheckoutInput = {
  /** Made once per checkout by the route (and kept in sessionStorage across a reload). */
  idempotencyKey: string
  /** Whether the signed-in member holds `redeem.override` (Manager, Admin). */
  canOverride: boolean
  /**
   * Whether the signed-in member holds `visits.approve` (Manager, Admin): they approve a price
   * above the catalogue's with a reason alone; Staff need a manager to sign in at the desk.
   * Defaults to `canOverride`.
   */
  canApprove?: boolean
  patient?: CheckoutPatient | null
  /** An appointment being completed: its id, and its procedure as the first line. */
  appointment?: { id: number; item: CheckoutItem | null } | null
  /** Lines restored after a reload. */
  items?: CheckoutItem[]
}

/** What the approval step has typed: the reason, and a manager's e-mail and password (Staff). */
export type ApprovalFields = { reason: string; email: string; password: string }

/** The code the patient was texted, and the redemption it is for (points, offer and bank). */
export type SentCode = { points?: number; promotion_id?: number; bank_cents?: number }

/** The undo's answer: the points balance, and the membership bank after it put back its part. */
export type UndoAnswer = { balance: number; membership_bank_cents?: number | null }

export type CheckoutContext = {
  idempotencyKey: string
  canOverride: boolean
  canApprove: boolean
  /** The approval step's fields. */
  approvalFields: ApprovalFields
  /** A manager's approval of these lines, or null. */
  approval: ApprovalAnswer | null
  patient: CheckoutPatient | null
  appointmentId: number | null
  items: CheckoutItem[]
  preview: VisitPreview | null
  offers: ClaimedOffer[]
  redemption: CheckoutRedemption
  /** Cents paid from the membership bank at this visit; 0: none. */
  bankCents: number
  /** The id of the code the patient was texted (POST /patients/{id}/redemption-code). */
  authyId: string | null
  code: string
  reason: string
  consent: CheckoutConsent | null
  /** When another code may be sent (epoch ms), for the view's countdown. */
  resendAvailableAt: number | null
  /** The recorded visit. */
  result: VisitAnswer | null
  /** The balance after an undo. */
  undoneBalance: number | null
  /** The membership bank after an undo put back what the visit paid from it, or null. */
  undoneBank: number | null
  /** The last failure, in the server's words, with what to do. */
  error: string | null
}

export type CheckoutEvent =
  | { type: 'patient.choose'; patient: CheckoutPatient }
  | { type: 'patient.change' }
  | { type: 'item.add'; item: CheckoutItem }
  | { type: 'item.change'; key: string; quantity: number; price_cents: number }
  | { type: 'item.remove'; key: string }
  | { type: 'items.submit' }
  | { type: 'items.edit' }
  | { type: 'redemption.choose'; redemption: CheckoutRedemption }
  | { type: 'bank.change'; cents: number }
  | { type: 'bank.useAll' }
  | { type: 'review.submit' }
  | { type: 'code.send' }
  | { type: 'code.change'; code: string }
  | { type: 'consent.useOverride' }
  | { type: 'consent.useCode' }
  | { type: 'override.change'; reason: string }
  | { type: 'consent.submit' }
  | { type: 'consent.back' }
  | { type: 'confirm.back' }
  | { type: 'approval.change'; fields: Partial<ApprovalFields> }
  | { type: 'approval.submit' }
  | { type: 'approval.back' }
  | { type: 'visit.confirm' }
  | { type: 'visit.undo' }

/** The points a redemption spends: the number asked, the claimed offer's cost, or both. */
export function redemptionPoints(
  redemption: CheckoutRedemption,
  offers: readonly ClaimedOffer[] = [],
): number {
  if (redemption.kind === 'points') return redemption.points
  if (redemption.kind === 'promotion') {
    const cost = offers.find((offer) => offer.promotion_id === redemption.promotion_id)?.cost ?? 0
    return cost + (redemption.points ?? 0)
  }
  return 0
}

/** The server's valuation of the chosen offer on these lines, or null. */
export function chosenValuation(
  context: Pick<CheckoutContext, 'redemption' | 'offers'>,
): OfferValuation | null {
  const { redemption } = context
  if (redemption.kind !== 'promotion') return null
  return (
    context.offers.find((offer) => offer.promotion_id === redemption.promotion_id)?.value ?? null
  )
}

/** The claimed offers with the server's valuation of each on the previewed lines. */
export function withValuations(preview: CheckoutPreview): ClaimedOffer[] {
  const values = preview.preview.offer_values ?? []
  return preview.offers.map((offer) => ({
    ...offer,
    value: values.find((value) => value.promotion_id === offer.promotion_id) ?? null,
  }))
}

/**
 * Whether the programme asks for the patient's code (or an override) for this redemption: the
 * server's rule ({@link codeNeeded}), for points and for a claimed offer alike.
 */
export function needsConsent(
  context: Pick<CheckoutContext, 'preview' | 'redemption' | 'offers'> &
    Partial<Pick<CheckoutContext, 'bankCents'>>,
): boolean {
  if (!context.preview) return false
  // Any payment from the membership bank is the patient's to agree to, whatever the threshold.
  if ((context.bankCents ?? 0) > 0) return true
  if (context.redemption.kind === 'none') return false
  return codeNeeded(
    redemptionPoints(context.redemption, context.offers),
    context.preview.redemption_code_threshold,
  )
}

/**
 * What the code is asked for: the points of the redemption, or its offer, and the amount paid
 * from the membership bank (one code covers them together).
 */
export function codeAmount(
  redemption: CheckoutRedemption,
  offers: readonly ClaimedOffer[] = [],
  bankCents = 0,
): SentCode {
  const bank = bankCents > 0 ? { bank_cents: bankCents } : {}
  if (redemption.kind === 'promotion') {
    return {
      promotion_id: redemption.promotion_id,
      ...(redemption.points ? { points: redemption.points } : {}),
      ...bank,
    }
  }
  if (redemption.kind === 'none') return bank
  return { points: redemptionPoints(redemption, offers), ...bank }
}

/** Whether the previewed lines need a manager's approval (a price or points above the rules). */
export function needsApproval(context: Pick<CheckoutContext, 'preview'>): boolean {
  return (context.preview?.approval_needed.length ?? 0) > 0
}

/** Whether the approval step can be sent: a reason, and a manager's sign-in unless one is at it. */
export function approvalReady(context: Pick<CheckoutContext, 'approvalFields' | 'canApprove'>) {
  const { reason, email, password } = context.approvalFields
  if (reason.trim() === '') return false
  return context.canApprove || (email.trim() !== '' && password !== '')
}

/** A line priced above its catalogue price, as the items step warns of it. */
export function aboveCatalogue(item: CheckoutItem): boolean {
  return item.catalogue_price_cents !== undefined && item.price_cents > item.catalogue_price_cents
}

/**
 * The most points this visit can redeem: the balance plus what the visit earns (after the
 * chosen offer's discount).
 */
export function spendablePoints(
  preview: VisitPreview | null,
  valuation: OfferValuation | null = null,
): number {
  return preview ? preview.balance + (valuation?.points ?? preview.points) : 0
}

/** Why the chosen points or offer cannot be redeemed, or null. */
export function pointsProblem(
  context: Pick<CheckoutContext, 'preview' | 'redemption'> &
    Partial<Pick<CheckoutContext, 'offers'>>,
): string | null {
  const { redemption } = context
  if (redemption.kind === 'none') return null
  const valuation = chosenValuation({ redemption, offers: context.offers ?? [] })
  // An offer whose procedures are not in the visit: the server's sentence.
  if (valuation?.problem) return valuation.problem
  const asked = redemption.kind === 'points' ? redemption.points : (redemption.points ?? 0)
  if (redemption.kind === 'promotion' && asked === 0) return null
  if (!Number.isInteger(asked) || asked < 1) {
    return 'Please enter a whole number of points, at least 1.'
  }
  const most = spendablePoints(context.preview, valuation)
  if (asked > most) {
    return `The patient can redeem at most ${pointsText(most)} at this visit.`
  }
  return null
}

/**
 * What the patient pays for the visit before the bank: the lines less the member's perks
 * (the preview's total) and less the chosen offer (its valuation's total, worked out by the server
 * on what the membership left).
 */
export function dueCents(
  context: Pick<CheckoutContext, 'preview' | 'redemption'> &
    Partial<Pick<CheckoutContext, 'offers'>>,
): number {
  if (!context.preview) return 0
  const valuation = chosenValuation({
    redemption: context.redemption,
    offers: context.offers ?? [],
  })
  return valuation && !valuation.problem ? valuation.total_cents : context.preview.total_cents
}

/**
 * What is left to pay at the desk once the bank paid its part; an amount the bank cannot pay
 * (more than it holds or the visit comes to) takes nothing off.
 */
export function deskCents(
  context: Pick<CheckoutContext, 'preview' | 'redemption' | 'bankCents'> &
    Partial<Pick<CheckoutContext, 'offers'>>,
): number {
  const bank = bankProblem(context) === null ? context.bankCents : 0
  return Math.max(0, dueCents(context) - bank)
}

/** The patient's membership bank at this visit, in cents (0 without a membership). */
export function bankBalance(context: Pick<CheckoutContext, 'preview'>): number {
  return context.preview?.membership?.bank_cents ?? 0
}

/** What "Use all" pays from the bank: all of it, or what the visit comes to when that is less. */
export function bankUseAll(
  context: Pick<CheckoutContext, 'preview' | 'redemption'> &
    Partial<Pick<CheckoutContext, 'offers'>>,
): number {
  return Math.max(0, Math.min(bankBalance(context), dueCents(context)))
}

/** Why the amount paid from the bank cannot be paid, in the server's words, or null. */
export function bankProblem(
  context: Pick<CheckoutContext, 'preview' | 'redemption' | 'bankCents'> &
    Partial<Pick<CheckoutContext, 'offers'>>,
): string | null {
  const cents = context.bankCents
  if (cents === 0) return null
  if (!Number.isInteger(cents) || cents < 0) {
    return 'Please enter an amount in dollars and cents, such as 25.00.'
  }
  if (!context.preview?.membership) return VISIT_MESSAGES.noBank
  const balance = bankBalance(context)
  if (cents > balance) return VISIT_MESSAGES.bankTooLittle(balance)
  const due = dueCents(context)
  if (cents > due) return VISIT_MESSAGES.bankMoreThanDue(due)
  return null
}

/** Why the chosen redemption or bank payment cannot be recorded, or null. */
export function redemptionProblem(
  context: Pick<CheckoutContext, 'preview' | 'redemption'> &
    Partial<Pick<CheckoutContext, 'offers' | 'bankCents'>>,
): string | null {
  return pointsProblem(context) ?? bankProblem({ ...context, bankCents: context.bankCents ?? 0 })
}

/** How a plan's cycle reads after "included": "this month", "these 3 months", "this year". */
export function cycleWords(interval: MemberAtCheckout['interval']): string {
  if (interval === 'quarter') return 'these 3 months'
  if (interval === 'year') return 'this year'
  return 'this month'
}

type Allowance = MemberAtCheckout['allowances'][number]

/**
 * What an allowance does at this visit, counted against the cycle: "1 of 1 HydraFacial included
 * this month" (units used of what the plan includes), or, when some were used earlier in the
 * cycle, "1 of the 2 HydraFacial left this month (3 included)".
 */
export function allowanceSentence(
  allowance: Allowance,
  interval: MemberAtCheckout['interval'],
): string {
  const { used, remaining, per_cycle, name } = allowance
  const cycle = cycleWords(interval)
  if (remaining <= 0) return `No ${name} left ${cycle}: all ${per_cycle} included were used.`
  if (remaining >= per_cycle) return `${used} of ${per_cycle} ${name} included ${cycle}`
  return `${used} of the ${remaining} ${name} left ${cycle} (${per_cycle} included)`
}

/**
 * The allowance as a line of the visit says it, after "Included with the membership: ":
 * "1 of 1 HydraFacial this month", or "1 of the 2 HydraFacial left this month (3 included)".
 */
export function allowanceLineWords(
  allowance: Allowance,
  interval: MemberAtCheckout['interval'],
): string {
  const { used, remaining, per_cycle, name } = allowance
  const cycle = cycleWords(interval)
  if (remaining >= per_cycle) return `${used} of ${per_cycle} ${name} ${cycle}`
  return `${used} of the ${remaining} ${name} left ${cycle} (${per_cycle} included)`
}

/** The allowance of a visit's line (a procedure), when the membership has one for it. */
export function lineAllowance(
  membership: MemberAtCheckout | null | undefined,
  line: Pick<VisitPreview['lines'][number], 'kind' | 'item_id'>,
): Allowance | null {
  if (!membership || line.kind !== 'procedure') return null
  return membership.allowances.find((a) => a.catalogue_item_id === line.item_id) ?? null
}

/** A line's member price: "Member price: −$13.50 (15%)", or null when none applies. */
export function memberPriceSentence(
  membership: MemberAtCheckout | null | undefined,
  line: Pick<VisitPreview['lines'][number], 'member_discount_cents'>,
): string | null {
  const cents = line.member_discount_cents ?? 0
  if (!membership || cents <= 0) return null
  return `Member price: −${formatDollars(cents)} (${membership.discount_percent}%)`
}

/** The multiplier as the desk reads it next to a line's points: "2× member points", or null. */
export function multiplierWords(membership: MemberAtCheckout | null | undefined): string | null {
  if (!membership?.perks_apply || membership.points_multiplier <= 1) return null
  return `${membership.points_multiplier}× member points`
}

/** A refusal of the posting that asks for the code again, and how. */
function codeFailure(message: string): 'retype' | 'newCode' | 'needed' | null {
  if (message === VISIT_MESSAGES.codeIncorrect) return 'retype'
  if (
    message === VISIT_MESSAGES.codeAttempts ||
    message === VISIT_MESSAGES.codeExpired ||
    message === VISIT_MESSAGES.codeUsed
  ) {
    return 'newCode'
  }
  if (message.startsWith("The patient's code is needed")) return 'needed'
  if (message.startsWith('This code is for ')) return 'newCode'
  return null
}

const RETRY_HINT = 'Nothing was recorded twice: press Confirm visit again to retry.'

/**
 * A refusal of the posting as the confirm step says it: the bank's refusals (the bank was used
 * elsewhere meanwhile) ask for another amount; anything else may be retried with the same key.
 */
function recordFailure(message: string): string {
  const bank =
    message === VISIT_MESSAGES.noBank ||
    message.startsWith('The membership bank holds ') ||
    /the bank cannot pay more than the visit\.$/.test(message)
  return bank
    ? `${message} Nothing was recorded: press Back and change the amount paid from the bank.`
    : `${message} ${RETRY_HINT}`
}

/** The body of `POST /visits` for this checkout. */
export function visitRequest(context: CheckoutContext): VisitInput {
  const items = context.items.map((item) =>
    item.kind === 'procedure'
      ? { procedure_id: item.item_id, quantity: item.quantity, price_cents: item.price_cents }
      : { product_id: item.item_id, quantity: item.quantity, price_cents: item.price_cents },
  )
  const request: VisitInput = {
    patient_id: context.patient?.id ?? 0,
    appointment_id: context.appointmentId,
    items,
    idempotencyKey: context.idempotencyKey,
    ...(context.approval ? { approval: { token: context.approval.token } } : {}),
  }
  const { redemption } = context
  const bank = context.bankCents > 0 ? { bank_cents: context.bankCents } : {}
  if (redemption.kind === 'none' && context.bankCents <= 0) return request
  const spend =
    redemption.kind === 'none'
      ? bank
      : redemption.kind === 'points'
        ? { points: redemption.points, ...bank }
        : {
            promotion_id: redemption.promotion_id,
            ...(redemption.points ? { points: redemption.points } : {}),
            ...bank,
          }
  const consent =
    context.consent?.kind === 'override'
      ? { override: { reason: context.reason.trim() } }
      : context.consent?.kind === 'code' && context.authyId
        ? { verification: { authyId: context.authyId, code: context.code } }
        : {}
  return { ...request, redemption: { ...spend, ...consent } }
}

/**
 * The front desk's checkout: choose the patient (or come from an
 * appointment, which fixes the patient and brings its procedure) → the items (procedures and
 * products, quantities, prices) → the points the server previews, with the lines it refuses and
 * the day they earn again → an optional redemption (points, or a promotion the patient claimed) →
 * the patient's SMS code when the programme's threshold asks for it, or a Manager's or Admin's
 * override with a reason → confirm → done, with Undo for 10 minutes.
 *
 * A member's visit (../shared/MEMBERSHIPS.md section 4): the server's preview applies the
 * allowances, the member price and the multiplier line by line, or flags why they are on hold;
 * the desk may pay part or all of what is left from the membership bank (`bank.change`,
 * `bank.useAll`), which always asks for the patient's code or an override, and the undo puts the
 * bank, the allowances and the points back.
 *
 * The idempotency key comes in with the input and is sent with every try of the same checkout,
 * so a double click (the second is not handled while posting), a retry after a timeout or a
 * reload (the route keeps the key in sessionStorage) records one visit. A failure keeps
 * everything entered and says what to do.
 *
 * Actors (supplied with `.provide`): `previewVisit` → the points preview and the patient's
 * claimed offers, `sendCode` → `{authyId}` (texts the patient a code), `recordVisit` → the
 * recorded visit, `undoVisit` → the balance after the reversals. Each rejects with an Error
 * carrying the server's sentence. Action slots: `onRecorded` (the route forgets the key and the
 * draft) and `onUndone`.
 */
export const checkoutMachine = setup({
  types: {
    context: {} as CheckoutContext,
    events: {} as CheckoutEvent,
    input: {} as CheckoutInput,
  },
  actors: {
    previewVisit: fromPromise<CheckoutPreview, VisitPreviewInput>(() =>
      Promise.reject(new Error('previewVisit: not provided')),
    ),
    sendCode: fromPromise<{ authyId: string }, { patientId: number } & SentCode>(() =>
      Promise.reject(new Error('sendCode: not provided')),
    ),
    checkCode: fromPromise<
      { valid: true },
      { patientId: number; authyId: string; code: string } & SentCode
    >(() => Promise.reject(new Error('checkCode: not provided'))),
    approveVisit: fromPromise<ApprovalAnswer, ApprovalRequest>(() =>
      Promise.reject(new Error('approveVisit: not provided')),
    ),
    recordVisit: fromPromise<VisitAnswer, VisitInput>(() =>
      Promise.reject(new Error('recordVisit: not provided')),
    ),
    undoVisit: fromPromise<UndoAnswer, { visitId: number }>(() =>
      Promise.reject(new Error('undoVisit: not provided')),
    ),
  },
  guards: {
    hasPatient: ({ context }) => context.patient !== null,
    isFromAppointment: ({ context }) => context.appointmentId !== null,
    hasItems: ({ context }) => context.items.length > 0,
    hasItem: ({ context, event }) =>
      (event.type === 'item.remove' || event.type === 'item.change') &&
      context.items.some((item) => item.key === event.key),
    isRedemptionValid: ({ context }) => redemptionProblem(context) === null,
    /** The patient has a membership whose bank holds something to pay with. */
    hasBank: ({ context }) => bankBalance(context) > 0,
    needsConsent: ({ context }) => needsConsent(context),
    needsApproval: ({ context }) => needsApproval(context) && context.approval === null,
    isApprovalReady: ({ context }) => approvalReady(context),
    /** A code change that completes the 6 digits: it is checked at once. */
    completesCode: ({ event }) => event.type === 'code.change' && /^\d{6}$/.test(event.code.trim()),
    canOverride: ({ context }) => context.canOverride,
    hasCode: ({ context }) => context.authyId !== null,
    isCodeValid: ({ context }) => /^\d{6}$/.test(context.code.trim()),
    hasReason: ({ context }) => context.reason.trim() !== '',
    isCodeRetype: (_, params: { error: unknown }) =>
      codeFailure(errorMessage(params.error, '')) === 'retype',
    isCodeRenewal: (_, params: { error: unknown }) =>
      codeFailure(errorMessage(params.error, '')) !== null,
    isWindowPassed: (_, params: { error: unknown }) =>
      errorMessage(params.error, '') === VISIT_MESSAGES.undoWindowPassed,
  },
  actions: {
    /** Slot: the visit is recorded (the route forgets the stored key and draft). */
    onRecorded: (_, _params: { answer: VisitAnswer }) => {},
    /** Slot: the visit is undone (the route reloads what it shows). */
    onUndone: () => {},
    clearPreview: assign({
      preview: null,
      redemption: { kind: 'none' as const },
      bankCents: 0,
      consent: null,
      approval: null,
    }),
  },
  delays: {
    resendCooldown: ({ context }) => Math.max(0, (context.resendAvailableAt ?? 0) - Date.now()),
    undoWindow: ({ context }) =>
      Math.max(0, Date.parse(context.result?.visit.undo_until ?? '') - Date.now() || 0),
  },
}).createMachine({
  id: 'checkout',
  context: ({ input }) => ({
    idempotencyKey: input.idempotencyKey,
    canOverride: input.canOverride,
    canApprove: input.canApprove ?? input.canOverride,
    approvalFields: { reason: '', email: '', password: '' },
    approval: null,
    patient: input.patient ?? null,
    appointmentId: input.appointment?.id ?? null,
    items:
      input.items && input.items.length > 0
        ? input.items
        : input.appointment?.item
          ? [input.appointment.item]
          : [],
    preview: null,
    offers: [],
    redemption: { kind: 'none' },
    bankCents: 0,
    authyId: null,
    code: '',
    reason: '',
    consent: null,
    resendAvailableAt: null,
    result: null,
    undoneBalance: null,
    undoneBank: null,
    error: null,
  }),
  initial: 'starting',
  states: {
    starting: {
      description: 'Opens on the items when the patient is known (profile, appointment).',
      always: [{ guard: 'hasPatient', target: 'editingItems' }, { target: 'choosingPatient' }],
    },
    choosingPatient: {
      description: 'Step 1: find the patient by name, e-mail or phone.',
      on: {
        'patient.choose': {
          target: 'editingItems',
          actions: assign(({ event }) => ({ patient: event.patient, authyId: null, error: null })),
        },
      },
    },
    editingItems: {
      description:
        'Step 2: the procedures and products of the visit, their quantities and prices. See points is possible with at least one line.',
      on: {
        // An appointment fixes its patient; otherwise the desk may pick another one.
        'patient.change': { guard: not('isFromAppointment'), target: 'choosingPatient' },
        'item.add': {
          actions: assign(({ context, event }) => {
            const known = context.items.find((item) => item.key === event.item.key)
            return {
              error: null,
              items: known
                ? context.items.map((item) =>
                    item.key === known.key ? { ...item, quantity: item.quantity + 1 } : item,
                  )
                : [...context.items, event.item],
            }
          }),
        },
        'item.change': {
          guard: 'hasItem',
          actions: assign(({ context, event }) => ({
            items: context.items.map((item) =>
              item.key === event.key
                ? { ...item, quantity: event.quantity, price_cents: event.price_cents }
                : item,
            ),
          })),
        },
        'item.remove': {
          guard: 'hasItem',
          actions: assign(({ context, event }) => ({
            items: context.items.filter((item) => item.key !== event.key),
          })),
        },
        'items.submit': { guard: 'hasItems', target: 'previewing' },
      },
    },
    previewing: {
      description: 'Asking the server what the visit earns and which lines it refuses.',
      entry: ['clearPreview', assign({ error: null })],
      invoke: {
        id: 'previewVisit',
        src: 'previewVisit',
        input: ({ context }) => ({
          patient_id: context.patient?.id ?? 0,
          appointment_id: context.appointmentId,
          items: visitRequest(context).items,
        }),
        onDone: {
          target: 'reviewing',
          actions: assign(({ event }) => ({
            preview: event.output.preview,
            offers: withValuations(event.output),
          })),
        },
        onError: {
          target: 'editingItems',
          actions: assign(({ event }) => ({
            error: errorMessage(
              event.error,
              'The points could not be worked out. Please try again.',
            ),
          })),
        },
      },
    },
    reviewing: {
      description:
        'Step 3: the points the visit earns (refused lines say when they earn again), what the membership takes off (a flag first when its perks are on hold), an optional redemption and an amount paid from the membership bank.',
      on: {
        'items.edit': { target: 'editingItems', actions: 'clearPreview' },
        // A code is for one amount: another redemption needs a new code.
        'redemption.choose': {
          actions: assign(({ event }) => ({
            redemption: event.redemption,
            authyId: null,
            code: '',
            error: null,
          })),
        },
        // What the membership bank pays; a code is for one amount, so a new amount drops it.
        'bank.change': {
          guard: 'hasBank',
          actions: assign(({ event }) => ({
            bankCents: event.cents,
            authyId: null,
            code: '',
            error: null,
          })),
        },
        'bank.useAll': {
          guard: 'hasBank',
          actions: assign(({ context }) => ({
            bankCents: bankUseAll(context),
            authyId: null,
            code: '',
            error: null,
          })),
        },
        // A price above the catalogue's or points above the ceiling: a manager approves first.
        // Then the code step only when the redemption needs it; a code sent earlier for the same
        // redemption is still the one to type (only the newest counts on the server).
        'review.submit': [
          { guard: and(['isRedemptionValid', 'needsApproval']), target: 'approval' },
          {
            guard: and(['isRedemptionValid', 'needsConsent', 'hasCode']),
            target: '#checkout.consent.code.sent',
          },
          { guard: and(['isRedemptionValid', 'needsConsent']), target: '#checkout.consent.code' },
          {
            guard: 'isRedemptionValid',
            target: 'confirming',
            actions: assign({ consent: null }),
          },
        ],
      },
    },
    approval: {
      description:
        "A line is priced above the catalogue or earns more points than the programme's ceiling: a manager approves it with a reason (signing in at the desk, or from their own session), or the visit cannot be recorded.",
      initial: 'editing',
      states: {
        editing: {
          description:
            'The reasons, the Reason field and, for Staff, the manager’s e-mail and password; Approve is possible once filled.',
          on: {
            'approval.change': {
              actions: assign(({ context, event }) => ({
                approvalFields: { ...context.approvalFields, ...event.fields },
                error: null,
              })),
            },
            'approval.submit': { guard: 'isApprovalReady', target: 'requesting' },
            'approval.back': { target: '#checkout.reviewing', actions: assign({ error: null }) },
          },
        },
        requesting: {
          description: 'Asking the server for the manager’s approval of these lines.',
          entry: assign({ error: null }),
          invoke: {
            id: 'approveVisit',
            src: 'approveVisit',
            input: ({ context }) => {
              const { reason, email, password } = context.approvalFields
              return {
                patient_id: context.patient?.id ?? 0,
                items: visitRequest(context).items,
                reason: reason.trim(),
                ...(context.canApprove ? {} : { manager: { email: email.trim(), password } }),
              }
            },
            onDone: {
              target: '#checkout.reviewing',
              actions: assign(({ context, event }) => ({
                approval: event.output,
                approvalFields: { ...context.approvalFields, password: '' },
              })),
            },
            onError: {
              target: 'editing',
              actions: assign(({ context, event }) => ({
                approvalFields: { ...context.approvalFields, password: '' },
                error: errorMessage(event.error, 'The approval could not be given.'),
              })),
            },
          },
        },
      },
    },
    consent: {
      description:
        "Step 4: the patient's SMS code, or a Manager's override with a reason, when the redemption needs one; skipped otherwise.",
      initial: 'code',
      on: {
        'consent.back': { target: 'reviewing', actions: assign({ error: null }) },
      },
      states: {
        code: {
          description: "The patient's code: Get code texts it to the patient's phone.",
          initial: 'idle',
          on: {
            'consent.useOverride': {
              guard: 'canOverride',
              target: 'override',
              actions: assign({ error: null }),
            },
          },
          states: {
            idle: {
              description: 'No code yet: Get code is available.',
              on: { 'code.send': 'sending' },
            },
            sending: {
              description: "Asking the server to text a code to the patient's phone.",
              entry: assign({ error: null }),
              invoke: {
                id: 'sendCode',
                src: 'sendCode',
                input: ({ context }) => ({
                  patientId: context.patient?.id ?? 0,
                  ...codeAmount(context.redemption, context.offers, context.bankCents),
                }),
                onDone: {
                  target: 'sent',
                  actions: assign(({ event }) => ({
                    authyId: event.output.authyId,
                    code: '',
                    resendAvailableAt: Date.now() + CODE_RESEND_MS,
                  })),
                },
                onError: [
                  {
                    // The code sent before still counts; the server's words say when to retry.
                    guard: 'hasCode',
                    target: 'sent.resendReady',
                    actions: assign(({ event }) => ({
                      error: errorMessage(event.error, 'The code could not be sent.'),
                    })),
                  },
                  {
                    target: 'idle',
                    actions: assign(({ event }) => ({
                      error: errorMessage(event.error, 'The code could not be sent.'),
                    })),
                  },
                ],
              },
            },
            sent: {
              description:
                'A code went out: type it; Continue is possible with 6 digits. Resend after 30 seconds.',
              initial: 'coolingDown',
              on: {
                // The sixth digit checks the code at once: a wrong one is said here.
                'code.change': [
                  {
                    guard: 'completesCode',
                    target: '#checkout.consent.code.checking',
                    actions: assign(({ event }) => ({ code: event.code.trim(), error: null })),
                  },
                  { actions: assign(({ event }) => ({ code: event.code, error: null })) },
                ],
                'consent.submit': {
                  guard: 'isCodeValid',
                  target: '#checkout.consent.code.checking',
                },
              },
              states: {
                coolingDown: {
                  description: 'A new code must wait 30 seconds after the last.',
                  after: { resendCooldown: 'resendReady' },
                },
                resendReady: {
                  description: 'Resend code may text a new code.',
                  on: { 'code.send': '#checkout.consent.code.sending' },
                },
              },
            },
            checking: {
              description:
                'Asking the server whether the typed code is the patient’s, for this amount; nothing is spent.',
              entry: assign({ error: null }),
              invoke: {
                id: 'checkCode',
                src: 'checkCode',
                input: ({ context }) => ({
                  patientId: context.patient?.id ?? 0,
                  authyId: context.authyId ?? '',
                  code: context.code.trim(),
                  ...codeAmount(context.redemption, context.offers, context.bankCents),
                }),
                onDone: {
                  target: '#checkout.confirming',
                  actions: assign({ consent: { kind: 'code' as const }, error: null }),
                },
                onError: [
                  {
                    guard: {
                      type: 'isCodeRetype',
                      params: ({ event }) => ({ error: event.error }),
                    },
                    target: 'sent',
                    actions: assign(({ event }) => ({
                      code: '',
                      error: `${errorMessage(event.error, '')} Please check the code with the patient and type it again.`,
                    })),
                  },
                  {
                    target: 'idle',
                    actions: assign(({ event }) => ({
                      authyId: null,
                      code: '',
                      error: errorMessage(event.error, 'The code could not be checked.'),
                    })),
                  },
                ],
              },
            },
          },
        },
        override: {
          description: "A Manager's or Admin's override: no code, a reason the ledger keeps.",
          on: {
            'override.change': {
              actions: assign(({ event }) => ({ reason: event.reason, error: null })),
            },
            'consent.useCode': [
              { guard: 'hasCode', target: 'code.sent', actions: assign({ error: null }) },
              { target: 'code', actions: assign({ error: null }) },
            ],
            'consent.submit': {
              guard: 'hasReason',
              target: '#checkout.confirming',
              actions: assign({ consent: { kind: 'override' as const }, error: null }),
            },
          },
        },
      },
    },
    confirming: {
      description: 'Step 5: the summary of the visit; Confirm visit records it.',
      on: {
        'confirm.back': { target: 'reviewing', actions: assign({ error: null }) },
        'visit.confirm': 'submitting',
      },
    },
    submitting: {
      description:
        'Recording the visit with the checkout’s one idempotency key; a second click is ignored.',
      entry: assign({ error: null }),
      invoke: {
        id: 'recordVisit',
        src: 'recordVisit',
        input: ({ context }) => visitRequest(context),
        onDone: {
          target: 'done',
          actions: [
            assign(({ event }) => ({ result: event.output })),
            { type: 'onRecorded', params: ({ event }) => ({ answer: event.output }) },
          ],
        },
        // The code was checked when typed; refused now (used up, expired, or for another
        // amount meanwhile), the patient is sent a new one.
        onError: [
          {
            guard: { type: 'isCodeRenewal', params: ({ event }) => ({ error: event.error }) },
            target: '#checkout.consent.code.idle',
            actions: assign(({ event }) => ({
              authyId: null,
              code: '',
              error: errorMessage(event.error, ''),
            })),
          },
          {
            target: 'confirming',
            actions: assign(({ event }) => ({
              error: recordFailure(errorMessage(event.error, 'The visit could not be recorded.')),
            })),
          },
        ],
      },
    },
    done: {
      description: 'The visit is recorded: the points earned and redeemed, the new balance.',
      initial: 'undoable',
      states: {
        undoable: {
          description: 'Undo visit is offered for 10 minutes after the visit.',
          after: { undoWindow: 'closed' },
          on: { 'visit.undo': 'undoing' },
        },
        undoing: {
          description: 'Posting the reversals of the visit’s entries.',
          entry: assign({ error: null }),
          invoke: {
            id: 'undoVisit',
            src: 'undoVisit',
            input: ({ context }) => ({ visitId: context.result?.visit.id ?? 0 }),
            onDone: {
              target: '#checkout.undone',
              actions: [
                assign(({ event }) => ({
                  undoneBalance: event.output.balance,
                  undoneBank: event.output.membership_bank_cents ?? null,
                })),
                'onUndone',
              ],
            },
            onError: [
              {
                guard: { type: 'isWindowPassed', params: ({ event }) => ({ error: event.error }) },
                target: 'closed',
                actions: assign(({ event }) => ({ error: errorMessage(event.error, '') })),
              },
              {
                target: 'undoable',
                actions: assign(({ event }) => ({
                  error: `${errorMessage(event.error, 'The visit could not be undone.')} Please try again.`,
                })),
              },
            ],
          },
        },
        closed: {
          description: 'The 10 minutes have passed: a manager reverses entries from the profile.',
        },
      },
    },
    undone: {
      description:
        'The visit is undone: its points are reversed and the appointment is open again.',
      type: 'final',
    },
  },
})
