import { setup, transition } from 'xstate'
import type { MembershipStatus } from '#domain/memberships.ts'

/**
 * The life of one membership (docs/decisions/025-membership-billing.md). The server holds a
 * membership's status and moves it only through this chart (`nextStatus` below): an event the chart does not take in the current status is refused, so
 * no code path can put a membership where the chart cannot. The profile's membership panel asks
 * the same chart which changes to offer.
 *
 * Billing events come from the renewal run, the payment gateway's answers and its webhooks; the
 * others are changes staff (or the patient) ask for.
 */
export type MembershipEvent =
  /** A cycle's charge succeeded: the first, a renewal, a retry, or after a card update. */
  | { type: 'charge.succeeded' }
  /** A cycle's charge was declined and a retry is scheduled. */
  | { type: 'charge.failed' }
  /** The last scheduled retry was declined: perks stop, the bank stays the patient's. */
  | { type: 'retries.exhausted' }
  /** Pause for 1 to 3 cycles: billing shifts, no perks. */
  | { type: 'pause' }
  /** Resume a paused membership (by hand, or when the pause runs out). */
  | { type: 'resume' }
  /** End at the end of the term (minimum term and notice respected). */
  | { type: 'cancel.at_period_end' }
  /** Take back a cancellation at the end of the term, before it happens. */
  | { type: 'cancel.undo' }
  /** End now (with or without a refund of the current cycle). */
  | { type: 'cancel.now' }
  /** The term reached the end a cancellation was set for. */
  | { type: 'term.ended' }
  /** Move to another plan, now (prorated) or at the next renewal. */
  | { type: 'plan.change' }
  /** A new card replaces the one on file. */
  | { type: 'card.update' }

export const membershipMachine = setup({
  types: { events: {} as MembershipEvent },
}).createMachine({
  id: 'membership',
  initial: 'active',
  description:
    'A membership from its first paid cycle to its end. A charge is per membership and cycle: exactly one succeeds.',
  states: {
    active: {
      description: 'Paid up: perks of the current cycle are in use; renews at the period end.',
      on: {
        'charge.succeeded': {
          target: 'active',
          description: 'The renewal is paid: a new cycle and its perks.',
        },
        'charge.failed': {
          target: 'past_due',
          description: 'The renewal was declined: retries follow the schedule.',
        },
        pause: { target: 'paused', description: 'Paused for 1 to 3 cycles.' },
        'cancel.at_period_end': {
          target: 'active',
          description: 'Will end at the end of the term.',
        },
        'cancel.undo': { target: 'active', description: 'Keeps renewing.' },
        'cancel.now': { target: 'cancelled', description: 'Ended now by staff or the patient.' },
        'term.ended': { target: 'ended', description: 'The term it was set to end at is over.' },
        'plan.change': {
          target: 'active',
          description: 'On another plan, now or from the next renewal.',
        },
        'card.update': { target: 'active', description: 'A new card for the next renewals.' },
      },
    },
    past_due: {
      description:
        'A renewal was declined: the desk sees it, the patient got a link to update the card.',
      on: {
        'charge.succeeded': {
          target: 'active',
          description: 'A retry (or the new card) paid the cycle.',
        },
        'charge.failed': {
          target: 'past_due',
          description: 'Another declined retry; more are scheduled.',
        },
        'retries.exhausted': { target: 'unpaid', description: 'The last retry was declined.' },
        'card.update': { target: 'past_due', description: 'A new card, charged at once.' },
        'cancel.now': { target: 'cancelled', description: 'Ended instead of retried.' },
      },
    },
    paused: {
      description: 'No charges and no perks until it resumes; the bank stays the patient’s.',
      on: {
        resume: { target: 'active', description: 'Billing starts again.' },
        'card.update': { target: 'paused', description: 'A new card for when it resumes.' },
        'cancel.now': { target: 'cancelled', description: 'Ended while paused.' },
      },
    },
    unpaid: {
      description:
        'Every retry was declined: perks stop; a new card or a charge by the desk brings it back.',
      on: {
        'charge.succeeded': { target: 'active', description: 'Paid at last: reactivated.' },
        'charge.failed': { target: 'unpaid', description: 'Charged by hand and declined again.' },
        'card.update': { target: 'unpaid', description: 'A new card, charged at once.' },
        'cancel.now': { target: 'cancelled', description: 'Ended for failed payment.' },
      },
    },
    cancelled: { type: 'final', description: 'Ended before its term.' },
    ended: { type: 'final', description: 'Reached the end of the term it was cancelled for.' },
  },
})

/**
 * The chart's answer for `event` in `status`; null when the chart does not take it there. Pure:
 * the server calls it inside the transaction that writes the new status.
 */
export function nextStatus(
  status: MembershipStatus,
  event: MembershipEvent['type'],
): MembershipStatus | null {
  const snapshot = membershipMachine.resolveState({ value: status })
  const move = { type: event } as MembershipEvent
  if (!snapshot.can(move)) return null
  const [next] = transition(membershipMachine, snapshot, move)
  return next.value as MembershipStatus
}
