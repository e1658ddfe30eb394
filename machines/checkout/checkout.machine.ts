import { and, assign, fromPromise, not, setup } from 'xstate'
import type { VisitAnswer, VisitInput, VisitPreview, VisitPreviewInput } from '#domain/visits.ts'
import { codeNeeded, VISIT_MESSAGES } from '#domain/visits.ts'
import { errorMessage } from '#machines/phone-verification/error-message.ts'

/** How long a new code waits after the last one (DESIGN.md section 8: 30 s resend gap). */
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
}

/** A promotion the patient claimed and may redeem at this visit: its bonus and the points it costs. */
export type ClaimedOffer = { promotion_id: number; title: string; bonus: number; cost: number }

/** What the visit redeems: nothing, a number of points, or a claimed promotion. */
export type CheckoutRedemption =
  | { kind: 'none' }
  | { kind: 'points'; points: number }
  | { kind: 'promotion'; promotion_id: number; title: string }

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
  patient?: CheckoutPatient | null
  /** An appointment being completed: its id, and its procedure as the first line. */
  appointment?: { id: number; item: CheckoutItem | null } | null
  /** Lines restored after a reload. */
  items?: CheckoutItem[]
}

export type CheckoutContext = {
  idempotencyKey: string
  canOverride: boolean
  patient: CheckoutPatient | null
  appointmentId: number | null
  items: CheckoutItem[]
  preview: VisitPreview | null
  offers: ClaimedOffer[]
  redemption: CheckoutRedemption
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
  | { type: 'review.submit' }
  | { type: 'code.send' }
  | { type: 'code.change'; code: string }
  | { type: 'consent.useOverride' }
  | { type: 'consent.useCode' }
  | { type: 'override.change'; reason: string }
  | { type: 'consent.submit' }
  | { type: 'consent.back' }
  | { type: 'confirm.back' }
  | { type: 'visit.confirm' }
  | { type: 'visit.undo' }

/** The points a redemption spends: the number asked, or the claimed offer's cost. */
export function redemptionPoints(
  redemption: CheckoutRedemption,
  offers: readonly ClaimedOffer[] = [],
): number {
  if (redemption.kind === 'points') return redemption.points
  if (redemption.kind === 'promotion') {
    return offers.find((offer) => offer.promotion_id === redemption.promotion_id)?.cost ?? 0
  }
  return 0
}

/**
 * Whether the programme asks for the patient's code (or an override) for this redemption: the
 * server's rule ({@link codeNeeded}), for points and for a claimed offer alike.
 */
export function needsConsent(
  context: Pick<CheckoutContext, 'preview' | 'redemption' | 'offers'>,
): boolean {
  if (!context.preview || context.redemption.kind === 'none') return false
  return codeNeeded(
    redemptionPoints(context.redemption, context.offers),
    context.preview.redemption_code_threshold,
  )
}

/** The most points this visit can redeem: the balance plus what the visit earns. */
export function spendablePoints(preview: VisitPreview | null): number {
  return preview ? preview.balance + preview.points : 0
}

/** Why the chosen redemption cannot be recorded, or null. */
export function redemptionProblem(
  context: Pick<CheckoutContext, 'preview' | 'redemption'>,
): string | null {
  const { redemption } = context
  if (redemption.kind !== 'points') return null
  if (!Number.isInteger(redemption.points) || redemption.points < 1) {
    return 'Please enter a whole number of points, at least 1.'
  }
  const most = spendablePoints(context.preview)
  if (redemption.points > most) {
    return `The patient can redeem at most ${most.toLocaleString('en-US')} points at this visit.`
  }
  return null
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
  return null
}

const RETRY_HINT = 'Nothing was recorded twice: press Confirm visit again to retry.'

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
  }
  const { redemption } = context
  if (redemption.kind === 'none') return request
  const spend =
    redemption.kind === 'points'
      ? { points: redemption.points }
      : { promotion_id: redemption.promotion_id }
  const consent =
    context.consent?.kind === 'override'
      ? { override: { reason: context.reason.trim() } }
      : context.consent?.kind === 'code' && context.authyId
        ? { verification: { authyId: context.authyId, code: context.code } }
        : {}
  return { ...request, redemption: { ...spend, ...consent } }
}

/**
 * The front desk's checkout (issue 17, PORTAL.md section 5): choose the patient (or come from an
 * appointment, which fixes the patient and brings its procedure) → the items (procedures and
 * products, quantities, prices) → the points the server previews, with the lines it refuses and
 * the day they earn again → an optional redemption (points, or a promotion the patient claimed) →
 * the patient's SMS code when the programme's threshold asks for it, or a Manager's or Admin's
 * override with a reason → confirm → done, with Undo for 10 minutes.
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
    sendCode: fromPromise<{ authyId: string }, { patientId: number }>(() =>
      Promise.reject(new Error('sendCode: not provided')),
    ),
    recordVisit: fromPromise<VisitAnswer, VisitInput>(() =>
      Promise.reject(new Error('recordVisit: not provided')),
    ),
    undoVisit: fromPromise<{ balance: number }, { visitId: number }>(() =>
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
    needsConsent: ({ context }) => needsConsent(context),
    canOverride: ({ context }) => context.canOverride,
    hasCode: ({ context }) => context.authyId !== null,
    isCodeValid: ({ context }) => /^\d{6}$/.test(context.code.trim()),
    hasReason: ({ context }) => context.reason.trim() !== '',
    isCodeRetype: (_, params: { error: unknown }) =>
      codeFailure(errorMessage(params.error, '')) === 'retype',
    isCodeRenewal: (_, params: { error: unknown }) => {
      const kind = codeFailure(errorMessage(params.error, ''))
      return kind === 'newCode' || kind === 'needed'
    },
    isWindowPassed: (_, params: { error: unknown }) =>
      errorMessage(params.error, '') === VISIT_MESSAGES.undoWindowPassed,
  },
  actions: {
    /** Slot: the visit is recorded (the route forgets the stored key and draft). */
    onRecorded: (_, _params: { answer: VisitAnswer }) => {},
    /** Slot: the visit is undone (the route reloads what it shows). */
    onUndone: () => {},
    clearPreview: assign({ preview: null, redemption: { kind: 'none' as const }, consent: null }),
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
    authyId: null,
    code: '',
    reason: '',
    consent: null,
    resendAvailableAt: null,
    result: null,
    undoneBalance: null,
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
            offers: event.output.offers,
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
        'Step 3: the points the visit earns (refused lines say when they earn again) and an optional redemption.',
      on: {
        'items.edit': { target: 'editingItems', actions: 'clearPreview' },
        'redemption.choose': {
          actions: assign(({ event }) => ({ redemption: event.redemption, error: null })),
        },
        // The code step only when the redemption needs it; a code sent earlier is still the one
        // to type (only the newest counts on the server).
        'review.submit': [
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
                input: ({ context }) => ({ patientId: context.patient?.id ?? 0 }),
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
                'code.change': {
                  actions: assign(({ event }) => ({ code: event.code, error: null })),
                },
                'consent.submit': {
                  guard: 'isCodeValid',
                  target: '#checkout.confirming',
                  actions: assign({ consent: { kind: 'code' as const }, error: null }),
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
        onError: [
          {
            guard: { type: 'isCodeRetype', params: ({ event }) => ({ error: event.error }) },
            target: '#checkout.consent.code.sent',
            actions: assign(({ event }) => ({
              code: '',
              error: `${errorMessage(event.error, '')} Please check the code with the patient and type it again.`,
            })),
          },
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
              error: `${errorMessage(event.error, 'The visit could not be recorded.')} ${RETRY_HINT}`,
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
                assign(({ event }) => ({ undoneBalance: event.output.balance })),
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
