/**
 * The checkout's jsdom driver: the checkout machine's paths replayed through the real checkout
 * screen with user-event, the four calls answered by the test, checking after every step that the
 * actor reached the modelled state and that the screen shows it.
 */
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent, { type UserEvent } from '@testing-library/user-event'
import type { ReactNode } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type Actor, createActor } from 'xstate'
import type { CatalogueItem } from '#domain/practice-data.ts'
import type {
  ApprovalAnswer,
  ApprovalRequest,
  VisitAnswer,
  VisitInput,
  VisitPreviewInput,
} from '#domain/visits.ts'
import {
  type CheckoutInput,
  type CheckoutPreview,
  CODE_RESEND_MS,
  checkoutMachine,
  chosenValuation,
  codeAmount,
  deskCents,
  memberPriceSentence,
  redemptionProblem,
  type SentCode,
  type UndoAnswer,
} from '#machines/checkout/checkout.machine.ts'
import { CheckoutView } from '#src/features/checkout/checkout-view.tsx'
import {
  expectEveryStateAndEvent,
  type PerformEach,
  replayThroughView,
} from '#tests/flows/shared/view-replay.ts'
import { flowPaths, pathTitle, type QaPath, qaFlow } from '#tests/mbt/index.ts'
import { controlled } from '#tests/support/deferred.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import {
  type CheckoutModelEvent,
  checkoutEvents,
  checkoutFlow,
  checkoutFixtures as f,
  checkoutModel as model,
} from './model.ts'

type Harness = {
  actor: Actor<typeof checkoutMachine>
  user: UserEvent
  previewVisit: ReturnType<typeof controlled<CheckoutPreview, VisitPreviewInput>>
  sendCode: ReturnType<typeof controlled<{ authyId: string }, { patientId: number } & SentCode>>
  checkCode: ReturnType<
    typeof controlled<
      { valid: true },
      { patientId: number; authyId: string; code: string } & SentCode
    >
  >
  approveVisit: ReturnType<typeof controlled<ApprovalAnswer, ApprovalRequest>>
  recordVisit: ReturnType<typeof controlled<VisitAnswer, VisitInput>>
  undoVisit: ReturnType<typeof controlled<UndoAnswer, { visitId: number }>>
}

const catalogueItem = (id: number, name: string, price: number): CatalogueItem => ({
  id,
  practice_id: 1,
  name,
  price,
  points: price / 100,
  own_points: null,
  min_days_between: 0,
  archived: false,
})
const procedures = [catalogueItem(2, 'HydraFacial', 19_900), catalogueItem(3, 'Botox', 35_000)]
const products = [catalogueItem(5, 'Vitamin C Serum', 18_200)]

/** Starts the real machine with calls the test answers and renders the checkout around it. */
async function open(path: QaPath): Promise<Harness> {
  const previewVisit = controlled<CheckoutPreview, VisitPreviewInput>()
  const sendCode = controlled<{ authyId: string }, { patientId: number } & SentCode>()
  const checkCode = controlled<
    { valid: true },
    { patientId: number; authyId: string; code: string } & SentCode
  >()
  const approveVisit = controlled<ApprovalAnswer, ApprovalRequest>()
  const recordVisit = controlled<VisitAnswer, VisitInput>()
  const undoVisit = controlled<UndoAnswer, { visitId: number }>()
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
    }),
    { input: path.input as CheckoutInput },
  ).start()
  const searchPatients = async (term: string) =>
    term.toLowerCase().startsWith('av')
      ? [{ id: f.patient.id, label: `${f.patient.name} · 555-0104` }]
      : []
  renderInRouter(
    (): ReactNode => (
      <CheckoutView
        actorRef={actor}
        procedures={procedures}
        products={products}
        searchPatients={searchPatients}
      />
    ),
    '/checkout',
  )
  await screen.findByText(/^Step \d of 6/)
  return {
    actor,
    user: userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) }),
    previewVisit,
    sendCode,
    checkCode,
    approveVisit,
    recordVisit,
    undoVisit,
  }
}

const button = (name: string | RegExp) => screen.getByRole('button', { name })

async function click(user: UserEvent, name: string | RegExp) {
  await user.click(button(name))
}

async function setText(user: UserEvent, label: string | RegExp, text: string) {
  const field = screen.getByLabelText(label)
  await user.clear(field)
  await user.type(field, text)
}

async function choose(user: UserEvent, label: string, option: string | RegExp) {
  await user.click(screen.getByRole('combobox', { name: label }))
  await user.click(await screen.findByRole('option', { name: option }))
}

/** What the desk does for each event, and what the fake calls answer. */
const perform: PerformEach<Harness, CheckoutModelEvent> = {
  'patient.choose': async ({ user }) => {
    await user.type(screen.getByRole('combobox', { name: 'Patient' }), 'Av')
    await act(async () => vi.advanceTimersByTime(300))
    await user.click(await screen.findByRole('option', { name: /^Avery Brooks/ }))
  },
  'patient.change': ({ user }) => click(user, 'Change patient'),
  'item.add': ({ user }, { item }) =>
    item.kind === 'procedure'
      ? choose(user, 'Add a procedure', new RegExp(`^${item.name}`))
      : choose(user, 'Add a product', new RegExp(`^${item.name}`)),
  'item.change': async ({ user }, e) => {
    await setText(user, `Quantity of ${f.product.name}`, String(e.quantity))
    await setText(user, `Unit price of ${f.product.name}`, String(e.price_cents / 100))
  },
  'item.remove': ({ user }) => click(user, `Remove ${f.procedure.name}`),
  'items.submit': ({ user }) => click(user, 'See points'),
  'items.edit': ({ user }) => click(user, 'Edit items'),
  'redemption.choose': async ({ user }, { redemption }) => {
    if (redemption.kind === 'none') {
      await user.click(screen.getByRole('radio', { name: 'Nothing' }))
    } else if (redemption.kind === 'promotion') {
      await user.click(screen.getByRole('radio', { name: new RegExp(`^${redemption.title}`) }))
      // Points for a reward as well, with the offer.
      if (redemption.points) {
        await setText(user, 'Points to redeem as well', String(redemption.points))
      }
    } else {
      await user.click(screen.getByRole('radio', { name: 'Points' }))
      await setText(user, 'Points to redeem', String(redemption.points))
    }
  },
  'bank.change': ({ user }, { cents }) =>
    setText(user, 'Paid from the membership bank', String(cents / 100)),
  'bank.useAll': ({ user }) => click(user, /^Use all/),
  'review.submit': ({ user }) => click(user, 'Continue'),
  'code.send': ({ user }) => click(user, /^(Get code|Resend code)$/),
  'code.change': ({ user }, { code }) => setText(user, 'SMS code', code),
  'consent.useOverride': ({ user }) => click(user, 'Use a manager override'),
  'consent.useCode': ({ user }) => click(user, "Use the patient's code instead"),
  'override.change': ({ user }, { reason }) => setText(user, 'Reason for the override', reason),
  'consent.submit': ({ user }) => click(user, 'Continue'),
  'consent.back': ({ user }) => click(user, 'Back'),
  'confirm.back': ({ user }) => click(user, 'Back'),
  'approval.change': async ({ user, actor }, { fields }) => {
    await setText(user, 'Reason for the approval', fields.reason ?? '')
    if (!actor.getSnapshot().context.canApprove) {
      await setText(user, "Manager's e-mail", fields.email ?? '')
      await setText(user, "Manager's password", fields.password ?? '')
    }
  },
  'approval.submit': ({ user }) => click(user, 'Approve'),
  'approval.back': ({ user }) => click(user, 'Back'),
  // Two fast clicks: the second is not handled while the first posts.
  'visit.confirm': async (h) => {
    await h.user.dblClick(button('Confirm visit'))
    expect(h.recordVisit.calls.length).toBeGreaterThan(0)
  },
  'visit.undo': async ({ user }) => {
    await click(user, 'Undo visit')
    const dialog = await screen.findByRole('dialog', { name: 'Undo this visit?' })
    await user.click(within(dialog).getByRole('button', { name: 'Undo visit' }))
  },
  'xstate.done.actor.previewVisit': async (h, { output }) => {
    await act(async () => h.previewVisit.latest().answer.resolve(output))
  },
  'xstate.error.actor.previewVisit': async (h, { error }) => {
    await act(async () => h.previewVisit.latest().answer.reject(error))
  },
  'xstate.done.actor.sendCode': async (h, { output }) => {
    // The code is asked for the one amount the desk chose.
    const { redemption, offers, bankCents, patient } = h.actor.getSnapshot().context
    expect(h.sendCode.latest().input).toEqual({
      patientId: patient?.id,
      ...codeAmount(redemption, offers, bankCents),
    })
    await act(async () => h.sendCode.latest().answer.resolve(output))
  },
  'xstate.error.actor.sendCode': async (h, { error }) => {
    await act(async () => h.sendCode.latest().answer.reject(error))
  },
  'xstate.done.actor.checkCode': async (h, { output }) => {
    const { redemption, offers, bankCents, patient } = h.actor.getSnapshot().context
    expect(h.checkCode.latest().input).toMatchObject({
      patientId: patient?.id,
      code: f.code,
      ...codeAmount(redemption, offers, bankCents),
    })
    await act(async () => h.checkCode.latest().answer.resolve(output))
  },
  'xstate.error.actor.checkCode': async (h, { error }) => {
    await act(async () => h.checkCode.latest().answer.reject(error))
  },
  'xstate.done.actor.approveVisit': async (h, { output }) => {
    const { input } = h.approveVisit.latest()
    expect(input.reason).toBe(f.approvalFields.reason)
    // Staff send the manager's sign-in; a Manager approves as themselves.
    expect(input.manager !== undefined).toBe(!h.actor.getSnapshot().context.canApprove)
    await act(async () => h.approveVisit.latest().answer.resolve(output))
  },
  'xstate.error.actor.approveVisit': async (h, { error }) => {
    await act(async () => h.approveVisit.latest().answer.reject(error))
  },
  'xstate.done.actor.recordVisit': async (h, { output }) => {
    // One post per confirm, always with the checkout's key.
    expect(h.recordVisit.latest().input.idempotencyKey).toBe(f.key)
    await act(async () => h.recordVisit.latest().answer.resolve(output))
  },
  'xstate.error.actor.recordVisit': async (h, { error }) => {
    await act(async () => h.recordVisit.latest().answer.reject(error))
  },
  'xstate.done.actor.undoVisit': async (h, { output }) => {
    // The visit the server recorded on this path (the fixture's, or the offer's).
    const { visitId } = h.undoVisit.latest().input
    expect([f.answer.visit.id, f.answerOffer.visit.id, f.answerMember.visit.id]).toContain(visitId)
    expect(visitId).toBe(h.actor.getSnapshot().context.result?.visit.id)
    await act(async () => h.undoVisit.latest().answer.resolve(output))
  },
  'xstate.error.actor.undoVisit': async (h, { error }) => {
    await act(async () => h.undoVisit.latest().answer.reject(error))
  },
  'xstate.after.resendCooldown.checkout.consent.code.sent.coolingDown': async () => {
    expect(button(/^Resend code in \d+ s$/)).toBeDisabled()
    await act(async () => vi.advanceTimersByTime(CODE_RESEND_MS))
  },
  'xstate.after.undoWindow.checkout.done.undoable': async () => {
    await act(async () => vi.advanceTimersByTime(10 * 60 * 1000))
  },
}

type Snapshot = ReturnType<Harness['actor']['getSnapshot']>

/** The failure of the last step, in a red alert, or none. */
function expectError(snapshot: Snapshot) {
  const alert = screen.queryByRole('alert')
  if (snapshot.context.error) expect(alert).toHaveTextContent(snapshot.context.error)
  else expect(alert).toBeNull()
}

/**
 * A member's review: the flag before anything else when the perks are on hold, the plan with its
 * status and bank, each line's included units and member price, the totals and the bank field.
 */
function expectMemberReview(s: Snapshot) {
  const membership = s.context.preview?.membership
  if (!membership) {
    expect(screen.queryByRole('region', { name: 'Membership' })).toBeNull()
    expect(screen.queryByLabelText('Paid from the membership bank')).toBeNull()
    return
  }
  const block = screen.getByRole('region', { name: 'Membership' })
  expect(block).toHaveTextContent(membership.plan_name)
  expect(block).toHaveTextContent(`Bank: $${(membership.bank_cents / 100).toFixed(2)}`)
  const flag = screen.queryByTestId('member-flag')
  if (membership.flag) {
    expect(flag).toHaveTextContent(membership.flag)
    // The flag comes before the membership, the lines and the bank.
    expect(flag?.compareDocumentPosition(block)).toBe(Node.DOCUMENT_POSITION_FOLLOWING)
    expect(block).toHaveTextContent('Past due')
    expect(screen.queryByTestId('line-allowance')).toBeNull()
    expect(screen.queryByTestId('line-member-price')).toBeNull()
  } else {
    expect(flag).toBeNull()
    expect(block).toHaveTextContent('Active')
    expect(screen.getByTestId('line-allowance')).toHaveTextContent(
      'Included with the membership: 1 of 1 HydraFacial this month',
    )
    expect(screen.getByTestId('line-price')).toHaveTextContent('$199.00 $0.00 each')
    const priced = s.context.preview?.lines.find((line) => line.member_discount_cents)
    expect(screen.getByTestId('line-member-price')).toHaveTextContent(
      memberPriceSentence(membership, priced ?? {}) ?? '',
    )
    expect(screen.getAllByText(`${membership.points_multiplier}× member points`)).toHaveLength(1)
  }
  const totals = screen.getByRole('region', { name: 'Totals' })
  expect(totals).toHaveTextContent(`Due at the desk$${(deskCents(s.context) / 100).toFixed(2)}`)
  const field = screen.getByLabelText('Paid from the membership bank')
  expect(field).toHaveValue(
    s.context.bankCents > 0
      ? `$${(s.context.bankCents / 100).toFixed(2).replace(/\.00$/, '')}`
      : '',
  )
  expect(button(/^Use all/)).toBeEnabled()
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`

/** The code step of a bank payment names its amount, as the text message does. */
function expectBankCode(s: Snapshot) {
  const { bankCents } = s.context
  if (bankCents > 0) {
    expect(
      screen.getByText(
        `To pay ${dollars(bankCents)} from the membership bank, the patient confirms with a 6-digit code we text to their phone.`,
      ),
    ).toBeVisible()
    expect(screen.getByTestId('code-amount')).toHaveTextContent(
      `The text message names the amount: ${dollars(bankCents)} from the membership bank.`,
    )
  } else expect(screen.queryByTestId('code-amount')).toBeNull()
}

const loading = (name: string | RegExp) => expect(button(name)).toHaveAttribute('data-loading')

/** What the checkout must show in each state (keyed by the state node id). */
const expectScreen: Record<string, (snapshot: Snapshot) => void> = {
  'checkout.choosingPatient': () => {
    expect(screen.getByText('Step 1 of 6: Patient')).toBeVisible()
    expect(screen.getByRole('combobox', { name: 'Patient' })).toBeVisible()
  },
  'checkout.editingItems': (s) => {
    expect(screen.getByRole('heading', { name: 'What did the visit include?' })).toBeVisible()
    expect(screen.getByText(`${s.context.patient?.name}`)).toBeVisible()
    for (const item of s.context.items) {
      expect(screen.getByLabelText(`Quantity of ${item.name}`)).toBeVisible()
    }
    // A price above the catalogue's is warned of before anything is sent.
    const above = s.context.items.some(
      (item) => item.price_cents > (item.catalogue_price_cents ?? 0),
    )
    expect(screen.queryByText(/a manager's approval will be needed\.$/) !== null).toBe(above)
    if (s.context.items.length > 0) expect(button('See points')).toBeEnabled()
    else expect(button('See points')).toBeDisabled()
    expect(screen.queryByRole('button', { name: 'Change patient' }) !== null).toBe(
      s.context.appointmentId === null,
    )
    expectError(s)
  },
  'checkout.previewing': () => loading('See points'),
  'checkout.reviewing': (s) => {
    expect(screen.getByRole('heading', { name: 'Points for this visit' })).toBeVisible()
    const preview = s.context.preview
    if (preview?.lines.some((line) => line.refused)) {
      expect(screen.getByText('HydraFacial earns points again on Jan 10, 2027.')).toBeVisible()
    }
    // The chosen offer's value: per line, then the new total and points.
    const valuation = chosenValuation(s.context)
    if (valuation && !valuation.problem) {
      expect(screen.getAllByTestId('line-discount').map((line) => line.textContent)).toEqual(
        f.previewOffer.preview.lines.map(() => 'Offer: −$50.00, pays $149.00'),
      )
      expect(screen.getByTestId('visit-earns')).toHaveTextContent(
        `With ${f.offerWords}, this visit costs $149.00 instead of $199.00 and earns 149 points.`,
      )
    } else {
      expect(screen.queryByTestId('line-discount')).toBeNull()
      expect(screen.getByTestId('visit-earns')).toHaveTextContent(
        `This visit earns ${preview?.points} points`,
      )
    }
    if (preview?.approval_needed.length) {
      if (s.context.approval) {
        expect(screen.getByText('Approved by Morgan Manager.')).toBeVisible()
      } else {
        expect(screen.getByText("A manager's approval is needed")).toBeVisible()
        expect(screen.getByText(f.approvalReason)).toBeVisible()
      }
    }
    expectMemberReview(s)
    const r = s.context.redemption
    const checked =
      r.kind === 'none' ? 'Nothing' : r.kind === 'points' ? 'Points' : new RegExp(`^${r.title}`)
    expect(screen.getByRole('radio', { name: checked })).toBeChecked()
    if (s.can({ type: 'review.submit' })) expect(button('Continue')).toBeEnabled()
    else {
      expect(button('Continue')).toBeDisabled()
      expect(screen.getByText(redemptionProblem(s.context) ?? '')).toBeVisible()
    }
  },
  'checkout.consent.code.idle': (s) => {
    expectBankCode(s)
    expect(screen.getByRole('heading', { name: "The patient's consent" })).toBeVisible()
    expect(button('Get code')).toBeEnabled()
    expect(button('Continue')).toBeDisabled()
    expect(screen.queryByRole('button', { name: 'Use a manager override' }) !== null).toBe(
      s.context.canOverride,
    )
    expectError(s)
  },
  'checkout.consent.code.sending': () => loading('Get code'),
  'checkout.consent.code.checking': () => {
    expect(screen.getByText('Checking the code…')).toBeVisible()
    loading('Continue')
  },
  'checkout.approval.editing': (s) => {
    expect(screen.getByRole('heading', { name: "A manager's approval" })).toBeVisible()
    expect(screen.getByText(f.approvalReason)).toBeVisible()
    expect(screen.queryByLabelText("Manager's password") !== null).toBe(!s.context.canApprove)
    if (s.can({ type: 'approval.submit' })) expect(button('Approve')).toBeEnabled()
    else expect(button('Approve')).toBeDisabled()
    expectError(s)
  },
  'checkout.approval.requesting': () => loading('Approve'),
  'checkout.consent.code.sent.coolingDown': (s) => {
    expectBankCode(s)
    expect(screen.getByLabelText('SMS code')).toBeVisible()
    expect(button(/^Resend code in \d+ s$/)).toBeDisabled()
    expectError(s)
  },
  'checkout.consent.code.sent.resendReady': (s) => {
    expect(screen.getByLabelText('SMS code')).toBeVisible()
    expect(button('Resend code')).toBeEnabled()
    expectError(s)
  },
  'checkout.consent.override': (s) => {
    expect(screen.getByLabelText('Reason for the override')).toBeVisible()
    if (s.context.reason.trim()) expect(button('Continue')).toBeEnabled()
    else expect(button('Continue')).toBeDisabled()
  },
  'checkout.confirming': (s) => {
    // A member's visit lists what it uses: the included treatment and the bank.
    if (s.context.bankCents > 0) {
      expect(screen.getByText('Uses 1 of 1 HydraFacial included this month.')).toBeVisible()
      expect(screen.getByTestId('visit-bank')).toHaveTextContent(`−${dollars(s.context.bankCents)}`)
      expect(screen.getByTestId('visit-desk')).toHaveTextContent(dollars(deskCents(s.context)))
      expect(screen.getByText(/^Paid from the membership bank/)).toHaveTextContent(
        "Paid from the membership bank, with the patient's code",
      )
    } else expect(screen.queryByTestId('visit-bank')).toBeNull()
    expect(screen.getByRole('heading', { name: 'Confirm the visit' })).toBeVisible()
    // What the patient pays and the points earned on it, the offer's value taken off.
    if (chosenValuation(s.context)) {
      expect(screen.getByTestId('visit-total')).toHaveTextContent('$149.00')
      expect(screen.getByText('Points earned: 149 points')).toBeVisible()
      expect(screen.getByText(/^Redeemed: /)).toHaveTextContent(
        `Redeemed: the offer ${f.offer.title} and ${f.manyPoints} points`,
      )
    } else {
      // A member's points are multiplied, and say so.
      const multiplier = s.context.preview?.membership?.perks_apply
        ? ` (${s.context.preview.membership.points_multiplier}× member points)`
        : ''
      expect(
        screen.getByText(`Points earned: ${s.context.preview?.points} points${multiplier}`),
      ).toBeVisible()
    }
    expect(button('Confirm visit')).toBeEnabled()
    expectError(s)
  },
  'checkout.submitting': () => loading('Confirm visit'),
  'checkout.done.undoable': (s) => {
    const bank = s.context.result?.visit.bank_cents ?? 0
    if (bank > 0) {
      expect(screen.getByRole('status')).toHaveTextContent(
        `Paid from the membership bank: ${dollars(bank)} · bank now ${dollars(s.context.result?.membership_bank_cents ?? 0)}.`,
      )
      expect(screen.getByRole('status')).toHaveTextContent(
        'Used 1 of 1 HydraFacial included this month.',
      )
    } else expect(screen.getByRole('status')).not.toHaveTextContent('membership bank')
    expect(screen.getByRole('status')).toHaveTextContent('Visit recorded')
    const result = s.context.result
    expect(screen.getByRole('status')).toHaveTextContent(
      `The balance is now ${result?.balance} points.`,
    )
    // The offer's visit: earned on what the patient paid, and what the offer took off.
    if (result?.visit.discount_cents) {
      expect(screen.getByRole('status')).toHaveTextContent(
        `${f.patient.name} earned 149 points and redeemed ${f.manyPoints} points. The balance is now 249 points. The offer took $50.00 off: the visit comes to $149.00.`,
      )
    } else expect(screen.getByRole('status')).not.toHaveTextContent('The offer took')
    expect(button('Undo visit')).toBeEnabled()
    expectError(s)
  },
  'checkout.done.undoing': () => loading('Undo visit'),
  'checkout.done.closed': (s) => {
    expect(screen.getByRole('status')).toHaveTextContent('Visit recorded')
    expect(screen.queryByRole('button', { name: 'Undo visit' })).toBeNull()
    expect(screen.getByRole('link', { name: "Open the patient's profile" })).toBeVisible()
    expectError(s)
  },
  'checkout.undone': (s) => {
    expect(screen.getByRole('status')).toHaveTextContent(
      'Visit undone' + 'Its points were reversed. The balance is back to 400 points.',
    )
    // What went back: the bank's payment and the included treatment.
    const bank = s.context.result?.visit.bank_cents ?? 0
    if (bank > 0) {
      expect(screen.getByRole('status')).toHaveTextContent(
        `${dollars(bank)} went back to the membership bank: bank now ${dollars(s.context.undoneBank ?? 0)}. The membership includes 1 × HydraFacial again.`,
      )
    }
  },
}

beforeEach(() => {
  // The fixture visit may be undone until 10:10.
  vi.useFakeTimers({ now: new Date('2026-11-25T10:00:00.000Z'), shouldAdvanceTime: true })
  vi.stubGlobal('jest', { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) })
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

const paths = flowPaths(qaFlow(checkoutFlow))

describe('checkout: paths from the machine, replayed through the checkout screen', () => {
  it.each(paths.map((p) => [pathTitle(p), p] as const))(
    '%s',
    async (_, path: QaPath) => {
      const h = await replayThroughView(path, { open, model, perform, checks: expectScreen })
      expect(h.recordVisit.calls.every((call) => call.input.idempotencyKey === f.key)).toBe(true)
      h.actor.stop()
    },
    120_000,
  )

  it('has a screen check for every state and an action for every event', () => {
    expectEveryStateAndEvent(
      model.machine,
      expectScreen,
      perform,
      checkoutEvents,
      (node) => node.type === 'atomic' || node.type === 'final',
    )
  })
})

describe("checkout: an offer with value, beside the machine's paths", () => {
  const hydraPreview = (problem: string | null): CheckoutPreview => ({
    preview: {
      lines: [f.previewLine(f.procedure, 199)],
      points: 199,
      total_cents: 19_900,
      balance: 400,
      point_value_cents: 10,
      redemption_code_threshold: 1_000,
      max_points_per_line: 5000,
      approval_needed: [],
      offer_values: [
        {
          promotion_id: 9,
          title: '$50 off HydraFacial',
          value: '$50.00 off HydraFacial',
          lines: problem
            ? [{ discount_cents: 0, points: 199 }]
            : [{ discount_cents: 5000, points: 149 }],
          discount_cents: problem ? 0 : 5000,
          total_cents: problem ? 19_900 : 14_900,
          points: problem ? 199 : 149,
          problem,
        },
      ],
    },
    offers: [{ promotion_id: 9, title: '$50 off HydraFacial', bonus: 0, cost: 0 }],
  })
  const start = () =>
    open({
      input: {
        idempotencyKey: f.key,
        canOverride: false,
        patient: f.patient,
        items: [{ ...f.procedure }],
      },
    } as unknown as QaPath)

  it('shows the offer per line and the new total before Confirm, and sends no discount', async () => {
    const h = await start()
    await click(h.user, 'See points')
    await act(async () => h.previewVisit.latest().answer.resolve(hydraPreview(null)))
    await h.user.click(await screen.findByRole('radio', { name: /^\$50 off HydraFacial/ }))
    expect(screen.getByRole('radio', { name: /^\$50 off HydraFacial/ })).toHaveAccessibleName(
      '$50 off HydraFacial (claimed offer, $50.00 off HydraFacial)',
    )
    expect(screen.getByTestId('line-discount')).toHaveTextContent('Offer: −$50.00, pays $149.00')
    expect(screen.getByTestId('visit-earns')).toHaveTextContent(
      'With $50.00 off HydraFacial, this visit costs $149.00 instead of $199.00 and earns 149 points.',
    )
    // Points for a reward at the same visit, with the offer.
    await setText(h.user, 'Points to redeem as well', '100')
    await click(h.user, 'Continue')
    await screen.findByRole('heading', { name: 'Confirm the visit' })
    expect(screen.getByTestId('visit-total')).toHaveTextContent('$149.00')
    expect(screen.getByText('Points earned: 149 points')).toBeVisible()
    expect(screen.getByText(/^Redeemed: /)).toHaveTextContent(
      'Redeemed: the offer $50 off HydraFacial and 100 points',
    )
    await click(h.user, 'Confirm visit')
    await waitFor(() => expect(h.recordVisit.calls).toHaveLength(1))
    const request = h.recordVisit.latest().input
    expect(request.redemption).toEqual({ promotion_id: 9, points: 100 })
    expect(JSON.stringify(request)).not.toContain('discount')
    h.actor.stop()
  })

  it("says why an offer does not apply to the visit's lines, and Continue waits", async () => {
    const h = await start()
    await click(h.user, 'See points')
    const problem =
      'The offer “$50 off HydraFacial” is $50.00 off HydraFacial, and this visit has no such line: add the procedure or choose no offer.'
    await act(async () => h.previewVisit.latest().answer.resolve(hydraPreview(problem)))
    await h.user.click(await screen.findByRole('radio', { name: /^\$50 off HydraFacial/ }))
    expect(screen.getByText(problem)).toBeVisible()
    expect(button('Continue')).toBeDisabled()
    expect(redemptionProblem(h.actor.getSnapshot().context)).toBe(problem)
    h.actor.stop()
  })
})
