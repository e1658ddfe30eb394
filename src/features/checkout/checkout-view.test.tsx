/**
 * The checkout screen for a member (../shared/MEMBERSHIPS.md section 4): member prices line by
 * line, the allowance used, the flag of a past-due member before anything else, the bank field
 * with its refusals and Use all, the code step of a bank payment, and what the done and undone
 * steps say. The real checkout machine runs behind the screen; its calls are answered here.
 */
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor } from 'xstate'
import type { CatalogueItem } from '#domain/practice-data.ts'
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  VISIT_MESSAGES,
  type VisitAnswer,
  type VisitInput,
  type VisitPreviewInput,
} from '#domain/visits.ts'
import {
  type CheckoutPatient,
  type CheckoutPreview,
  checkoutMachine,
  type SentCode,
  type UndoAnswer,
} from '#machines/checkout/checkout.machine.ts'
import { CheckoutView } from '#src/features/checkout/checkout-view.tsx'
import { checkoutFixtures as f } from '#tests/flows/checkout/model.ts'
import { controlled } from '#tests/support/deferred.ts'
import { renderInRouter } from '#tests/support/render.tsx'

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

/** The checkout for `patient` with HydraFacial and Vitamin C Serum, its calls answered here. */
async function open(patient: CheckoutPatient = f.member) {
  const calls = {
    previewVisit: controlled<CheckoutPreview, VisitPreviewInput>(),
    sendCode: controlled<{ authyId: string }, { patientId: number } & SentCode>(),
    checkCode: controlled<
      { valid: true },
      { patientId: number; authyId: string; code: string } & SentCode
    >(),
    approveVisit: controlled<ApprovalAnswer, ApprovalRequest>(),
    recordVisit: controlled<VisitAnswer, VisitInput>(),
    undoVisit: controlled<UndoAnswer, { visitId: number }>(),
  }
  const actor = createActor(
    checkoutMachine.provide({
      actors: {
        previewVisit: calls.previewVisit.logic,
        sendCode: calls.sendCode.logic,
        checkCode: calls.checkCode.logic,
        approveVisit: calls.approveVisit.logic,
        recordVisit: calls.recordVisit.logic,
        undoVisit: calls.undoVisit.logic,
      },
    }),
    {
      input: {
        idempotencyKey: f.key,
        canOverride: false,
        patient,
        items: [f.procedure, f.product],
      },
    },
  ).start()
  renderInRouter(
    () => (
      <CheckoutView
        actorRef={actor}
        procedures={[catalogueItem(2, 'HydraFacial', 19_900)]}
        products={[catalogueItem(5, 'Vitamin C Serum', 18_200)]}
        searchPatients={async () => []}
      />
    ),
    '/checkout',
  )
  const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) })
  await user.click(await screen.findByRole('button', { name: 'See points' }))
  return { actor, user, ...calls }
}

type Checkout = Awaited<ReturnType<typeof open>>

async function preview(h: Checkout, answer: CheckoutPreview = f.previewMember) {
  await act(async () => h.previewVisit.latest().answer.resolve(answer))
  await screen.findByRole('heading', { name: 'Points for this visit' })
}

const bankField = () => screen.getByRole('textbox', { name: 'Paid from the membership bank' })
const totals = () => screen.getByRole('region', { name: 'Totals' })

/** The totals as rows of label and amount. */
function totalRows(): string[] {
  return within(totals())
    .getAllByText(/^(Subtotal|Included with the membership|Member price|Offer|Due at the desk)$/)
    .map((label) => label.parentElement?.textContent ?? '')
}

/** Types the bank amount and goes on to the code step. */
async function payFromBank(h: Checkout, dollars: string) {
  await h.user.type(bankField(), dollars)
  await h.user.click(screen.getByRole('button', { name: 'Continue' }))
  await screen.findByRole('heading', { name: "The patient's consent" })
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-11-25T10:00:00.000Z'), shouldAdvanceTime: true })
})

afterEach(() => {
  vi.useRealTimers()
})

describe('the checkout of a member', () => {
  it('shows the membership, each line’s member price and included units, and the totals', async () => {
    const h = await open()
    await preview(h)
    const block = screen.getByRole('region', { name: 'Membership' })
    expect(block).toHaveTextContent('Glow Club')
    expect(within(block).getByText('Active')).toBeVisible()
    expect(within(block).getByText('Bank: $100.00')).toBeVisible()
    expect(within(block).getByText('1 of 1 HydraFacial included this month.')).toBeVisible()
    const lines = within(screen.getByRole('list', { name: 'Points per item' })).getAllByRole(
      'listitem',
    )
    const [hydra, serum] = lines
    expect(hydra).toHaveTextContent('Included with the membership: 1 of 1 HydraFacial this month')
    // The included unit's price, struck to $0.00; no points on it.
    expect(within(hydra as HTMLElement).getByText('$199.00').tagName).toBe('S')
    expect(hydra).toHaveTextContent('$199.00 $0.00 each')
    expect(hydra).toHaveTextContent('+0 points')
    expect(within(hydra as HTMLElement).queryByText('2× member points')).toBeNull()
    expect(serum).toHaveTextContent('Member price: −$27.30 (15%)')
    expect(serum).toHaveTextContent('+306 points')
    expect(within(serum as HTMLElement).getByText('2× member points')).toBeVisible()
    expect(totalRows()).toEqual([
      'Subtotal$381.00',
      'Included with the membership−$199.00',
      'Member price−$27.30',
      'Due at the desk$154.70',
    ])
    expect(bankField()).toHaveAccessibleDescription(
      "Bank: $100.00. Any amount from the bank needs the patient's code.",
    )
    h.actor.stop()
  })

  it('flags a past-due member before anything else, with no member perks, and lets the bank pay all', async () => {
    const h = await open(f.pastDueMember)
    await preview(h, f.previewPastDue)
    const flag = screen.getByRole('alert')
    expect(flag).toHaveTextContent(
      `Member perks are on hold${VISIT_MESSAGES.memberPastDue('Glow Club')}`,
    )
    // Before the membership, the lines, the totals and the bank.
    for (const later of [
      screen.getByRole('region', { name: 'Membership' }),
      screen.getByRole('list', { name: 'Points per item' }),
      totals(),
    ]) {
      expect(flag.compareDocumentPosition(later) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    }
    expect(screen.getByRole('region', { name: 'Membership' })).toHaveTextContent('Past due')
    expect(screen.queryByText(/^Included with the membership:/)).toBeNull()
    expect(screen.queryByText(/^Member price:/)).toBeNull()
    expect(screen.queryByText('2× member points')).toBeNull()
    expect(totalRows()).toEqual(['Subtotal$381.00', 'Due at the desk$381.00'])
    await h.user.click(screen.getByRole('button', { name: 'Use all: $100.00 from the bank' }))
    expect(bankField()).toHaveValue('$100')
    expect(totalRows()).toEqual(['Subtotal$381.00', 'Due at the desk$281.00'])
    h.actor.stop()
  })

  it('says next to the bank field what it cannot pay, keeping what was typed', async () => {
    const h = await open()
    // $200.00 in the bank, more than the $154.70 the visit comes to.
    const membership = f.previewMember.preview.membership
    await preview(h, {
      ...f.previewMember,
      preview: {
        ...f.previewMember.preview,
        membership: membership && { ...membership, bank_cents: 20_000 },
      },
    })
    const continueButton = screen.getByRole('button', { name: 'Continue' })
    await h.user.type(bankField(), '250')
    expect(bankField()).toHaveValue('$250')
    expect(bankField()).toBeInvalid()
    expect(bankField()).toHaveAccessibleDescription(
      expect.stringContaining(VISIT_MESSAGES.bankTooLittle(20_000)),
    )
    // Nothing comes off what is due until the bank can pay it.
    expect(totalRows().at(-1)).toBe('Due at the desk$154.70')
    expect(continueButton).toBeDisabled()
    await h.user.clear(bankField())
    await h.user.type(bankField(), '160')
    expect(bankField()).toHaveValue('$160')
    expect(bankField()).toHaveAccessibleDescription(
      expect.stringContaining(VISIT_MESSAGES.bankMoreThanDue(15_470)),
    )
    expect(continueButton).toBeDisabled()
    // Use all: what the visit comes to, as it is less than the bank.
    await h.user.click(screen.getByRole('button', { name: 'Use all: $154.70 from the bank' }))
    expect(bankField()).toHaveValue('$154.7')
    expect(bankField()).toBeValid()
    expect(totalRows().at(-1)).toBe('Due at the desk$0.00')
    expect(continueButton).toBeEnabled()
    h.actor.stop()
  })

  it('asks the patient’s code for the bank amount, names it, and lists it at Confirm', async () => {
    const h = await open()
    await preview(h)
    await payFromBank(h, '25')
    expect(
      screen.getByText(
        'To pay $25.00 from the membership bank, the patient confirms with a 6-digit code we text to their phone.',
      ),
    ).toBeVisible()
    expect(
      screen.getByText(
        'The text message names the amount: $25.00 from the membership bank. The code pays only that amount.',
      ),
    ).toBeVisible()
    await h.user.click(screen.getByRole('button', { name: 'Get code' }))
    expect(h.sendCode.latest().input).toEqual({ patientId: f.member.id, bank_cents: 2_500 })
    await act(async () => h.sendCode.latest().answer.resolve({ authyId: f.authyId }))
    await h.user.type(screen.getByRole('textbox', { name: 'SMS code' }), f.code)
    expect(h.checkCode.latest().input).toMatchObject({ code: f.code, bank_cents: 2_500 })
    await act(async () => h.checkCode.latest().answer.resolve({ valid: true }))
    await screen.findByRole('heading', { name: 'Confirm the visit' })
    expect(screen.getByText('Included with the membership (1 ×)')).toBeVisible()
    expect(screen.getByText('Member price (15%)')).toBeVisible()
    expect(screen.getByTestId('visit-total')).toHaveTextContent('$154.70')
    expect(screen.getByText("Paid from the membership bank, with the patient's code")).toBeVisible()
    expect(screen.getByTestId('visit-bank')).toHaveTextContent('−$25.00')
    expect(screen.getByTestId('visit-desk')).toHaveTextContent('$129.70')
    expect(screen.getByText('Uses 1 of 1 HydraFacial included this month.')).toBeVisible()
    expect(screen.getByText('Points earned: 306 points (2× member points)')).toBeVisible()
    h.actor.stop()
  })

  it('says what the visit used, and what the undo put back', async () => {
    const h = await open()
    await preview(h)
    await payFromBank(h, '25')
    await h.user.click(screen.getByRole('button', { name: 'Get code' }))
    await act(async () => h.sendCode.latest().answer.resolve({ authyId: f.authyId }))
    await h.user.type(screen.getByRole('textbox', { name: 'SMS code' }), f.code)
    await act(async () => h.checkCode.latest().answer.resolve({ valid: true }))
    await h.user.click(await screen.findByRole('button', { name: 'Confirm visit' }))
    await act(async () => h.recordVisit.latest().answer.resolve(f.answerMember))
    const recorded = await screen.findByRole('status')
    expect(recorded).toHaveTextContent(
      `Visit recorded${f.member.name} earned 306 points. The balance is now 706 points. The membership took $226.30 off (included $199.00, member price $27.30). Used 1 of 1 HydraFacial included this month. Paid from the membership bank: $25.00 · bank now $75.00. Due at the desk: $129.70.`,
    )
    await h.user.click(screen.getByRole('button', { name: 'Undo visit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Undo this visit?' })
    expect(dialog).toHaveTextContent(
      '$25.00 goes back to the membership bank. The included treatments (1 × HydraFacial) can be used again.',
    )
    await h.user.click(within(dialog).getByRole('button', { name: 'Undo visit' }))
    expect(h.undoVisit.latest().input).toEqual({ visitId: f.answerMember.visit.id })
    await act(async () => h.undoVisit.latest().answer.resolve(f.undoneMember))
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Visit undone'))
    expect(screen.getByRole('status')).toHaveTextContent(
      'Visit undoneIts points were reversed. The balance is back to 400 points. $25.00 went back to the membership bank: bank now $100.00. The membership includes 1 × HydraFacial again.',
    )
    h.actor.stop()
  })
})
