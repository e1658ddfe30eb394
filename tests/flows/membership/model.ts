/**
 * The membership lifecycle's model and flow: the chart the server moves every membership through
 * (`machines/membership/membership.machine.ts`), walked as the desk and the billing clock move one
 * patient's membership on the profile. Staff changes are the panel's buttons; billing events are
 * the test cards and the billing clock (`POST /api/dev/clock`). The view test
 * (`view.test.tsx`) replays the paths on the profile with a fake server that moves the real chart;
 * the browser replay (`browser.spec.ts`) against the real server.
 *
 * The chart holds statuses only, so it takes steps no person can take in a row (Keep membership
 * without a cancellation set, the term's end without one): the paths are written by hand in the
 * product's order (`journeys`) and walked on the machine, which checks every step.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import { membershipMachine } from '#machines/membership/membership.machine.ts'
import type { FlowSpec, Model, QaPath, QaStep, StepPlan } from '#tests/mbt/index.ts'

/** The test cards a step uses (the built-in test gateway follows Stripe's). */
export const MEMBERSHIP_CARDS = {
  /** Succeeds. */
  good: '4242 4242 4242 4242',
  /** Attaches, but every charge of it is declined. */
  declining: '4000 0000 0000 0341',
} as const

/** What the fixtures name: the plans, the patient. */
export const membershipFixtures = {
  plan: 'Glow Monthly',
  otherPlan: 'Glow Plus',
  patient: 'Grace Hopper',
} as const

/**
 * The chart's events as a person brings them about: which card, and what charges (the clock's
 * renewal run, the desk's Charge now, or the new card charged at once).
 */
export type MembershipModelEvent =
  | { type: 'charge.succeeded'; by: 'renewal' | 'new card' }
  | { type: 'charge.failed'; by: 'renewal' | 'charge now' }
  | { type: 'retries.exhausted' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'cancel.at_period_end' }
  | { type: 'cancel.undo' }
  | { type: 'cancel.now' }
  | { type: 'term.ended' }
  | { type: 'plan.change' }
  | { type: 'card.update'; card: keyof typeof MEMBERSHIP_CARDS }

const renewalPaid = { type: 'charge.succeeded', by: 'renewal' } as const
const newCardPaid = { type: 'charge.succeeded', by: 'new card' } as const
const renewalDeclined = { type: 'charge.failed', by: 'renewal' } as const
const chargeNowDeclined = { type: 'charge.failed', by: 'charge now' } as const
const decliningCard = { type: 'card.update', card: 'declining' } as const
const goodCard = { type: 'card.update', card: 'good' } as const

/** Every event with its fixtures. */
export const membershipEvents: MembershipModelEvent[] = [
  renewalPaid,
  newCardPaid,
  renewalDeclined,
  chargeNowDeclined,
  { type: 'retries.exhausted' },
  { type: 'pause' },
  { type: 'resume' },
  { type: 'cancel.at_period_end' },
  { type: 'cancel.undo' },
  { type: 'cancel.now' },
  { type: 'term.ended' },
  { type: 'plan.change' },
  decliningCard,
  goodCard,
]

/** The paths' names (each starts from a patient enrolled at the desk). */
const JOURNEYS = [
  'Paused, resumed, renewed, then ended at the end of its term',
  'Another plan, a cancellation taken back, then cancelled now',
  'A new card while paused, then cancelled now',
  'A declined renewal, paid with a new card',
  'A declined renewal and Charge now, then cancelled now',
  'Every retry declined: unpaid, then paid with a new card',
  'Every retry declined: unpaid, then cancelled now',
] as const

/** The paths, in the order the product allows (each step is checked on the chart). */
const journeys: { scenario: string; events: MembershipModelEvent[] }[] = [
  // Paused and resumed, renewed, then set to end and ended.
  {
    scenario: JOURNEYS[0],
    events: [
      { type: 'pause' },
      { type: 'resume' },
      renewalPaid,
      { type: 'cancel.at_period_end' },
      { type: 'term.ended' },
    ],
  },
  // Another plan, a cancellation set and taken back, then ended now.
  {
    scenario: JOURNEYS[1],
    events: [
      { type: 'plan.change' },
      { type: 'cancel.at_period_end' },
      { type: 'cancel.undo' },
      { type: 'cancel.now' },
    ],
  },
  // A new card while paused, then ended now.
  { scenario: JOURNEYS[2], events: [{ type: 'pause' }, goodCard, { type: 'cancel.now' }] },
  // A declined renewal, paid with a new card at the desk.
  { scenario: JOURNEYS[3], events: [decliningCard, renewalDeclined, goodCard, newCardPaid] },
  // A declined renewal, Charge now declined too, ended now.
  {
    scenario: JOURNEYS[4],
    events: [decliningCard, renewalDeclined, chargeNowDeclined, { type: 'cancel.now' }],
  },
  // Every retry declined: unpaid; Charge now declined again; a new card pays it.
  {
    scenario: JOURNEYS[5],
    events: [
      decliningCard,
      renewalDeclined,
      { type: 'retries.exhausted' },
      chargeNowDeclined,
      goodCard,
      newCardPaid,
    ],
  },
  // Every retry declined: unpaid, then ended now.
  {
    scenario: JOURNEYS[6],
    events: [decliningCard, renewalDeclined, { type: 'retries.exhausted' }, { type: 'cancel.now' }],
  },
]

const states: Record<string, string> = {
  'membership.active':
    'You see: the Membership panel with the plan, the badge Active, the period, the next payment and the card; Pause, Change plan, Update card and Cancel at end of term (Keep membership instead when a cancellation is set)',
  'membership.past_due':
    'You see: the badge Past due and the alert "Payment past due" with the next retry and Charge now; Update card and Cancel now',
  'membership.paused':
    'You see: the badge Paused, "Paused: billing starts again on …" under Scheduled; Resume, Update card and Cancel now',
  'membership.unpaid':
    'You see: the badge Unpaid and the alert "Unpaid: perks are stopped" with Charge now; Update card and Cancel now',
  'membership.cancelled': `You see: "No membership now. The last one, ${membershipFixtures.plan}, is cancelled since …" and Start membership; the history stays`,
  'membership.ended': `You see: "No membership now. The last one, ${membershipFixtures.plan}, is ended since …" and Start membership; the history stays`,
}

/** The words of an event, whatever the status it comes in. */
function describeEvent(event: EventObject): string {
  const e = event as MembershipModelEvent
  switch (e.type) {
    case 'charge.succeeded':
      return e.by === 'renewal'
        ? 'The billing clock moves past the renewal (POST /api/dev/clock): the card on file is charged; reload the profile'
        : 'The server charges the new card at once: you see "The new card was charged: the membership is active again."'
    case 'charge.failed':
      return e.by === 'renewal'
        ? `The billing clock moves past the renewal (POST /api/dev/clock): the card on file (${MEMBERSHIP_CARDS.declining}) is declined; reload the profile`
        : 'Click Charge now, read what it costs, click Confirm charge: you see "Your card was declined."; click Go back'
    case 'retries.exhausted':
      return 'The billing clock moves past the last retry (8 days after the renewal; POST /api/dev/clock): every retry is declined; reload the profile'
    case 'pause':
      return 'Click Pause, keep 1 cycle, click Review cost, then Confirm pause'
    case 'resume':
      return 'Click Resume, then Resume membership'
    case 'cancel.at_period_end':
      return 'Click Cancel at end of term, read what it costs, click Confirm cancellation'
    case 'cancel.undo':
      return 'Click Keep membership, then Keep membership in the dialog'
    case 'cancel.now':
      return 'Click Cancel now, keep No refund, click Review cost, then Cancel membership now'
    case 'term.ended':
      return 'The billing clock moves past the end of the term (POST /api/dev/clock): the membership ends; reload the profile'
    case 'plan.change':
      return `Click Change plan, choose ${membershipFixtures.otherPlan}, keep At the next renewal, click Review cost, then Confirm plan change`
    case 'card.update':
      return `Click Update card, type ${MEMBERSHIP_CARDS[e.card]} (any future expiry, CVV 123), click Save card`
    default:
      return ''
  }
}

/** The membership chart's model. */
export const membershipModel: Model = {
  name: 'membership',
  title: 'Membership lifecycle',
  source: {
    file: 'machines/membership/membership.machine.ts',
    name: 'membershipMachine',
    doc: 'membership',
  },
  machine: membershipMachine,
  events: membershipEvents,
  scenarios: JOURNEYS.map((name) => ({ name, input: undefined })),
  // The chart has statuses only: the status is the state.
  signature: (snapshot: AnyMachineSnapshot) => JSON.stringify(snapshot.value),
  // A new card that owes is charged at once, and a renewal is paid by the clock only while active.
  allows: (snapshot, event) => {
    const e = event as MembershipModelEvent
    if (e.type === 'charge.succeeded')
      return snapshot.value === 'active' ? e.by === 'renewal' : true
    if (e.type === 'charge.failed')
      return snapshot.value === 'unpaid' ? e.by === 'charge now' : true
    return true
  },
  states,
  describeEvent,
  journeys,
}

/** Whether the membership owes a cycle in the state before step `i`. */
function owesBefore(path: QaPath, i: number): boolean {
  const before = (path.steps[i - 1] as QaStep).state.value
  return before === 'past_due' || before === 'unpaid'
}

/** What the running product needs for a step besides the model's words. */
function step(path: QaPath, i: number): StepPlan {
  const event = (path.steps[i] as QaStep).event as MembershipModelEvent
  if (event.type === 'card.update' && owesBefore(path, i)) {
    return {
      text: `Click Update card, type ${MEMBERSHIP_CARDS[event.card]} (any future expiry, CVV 123), click Save card and charge`,
      note: 'The new card is saved and charged in one request: the replay holds it until the busy dialog has been checked, and the next step lets it through.',
    }
  }
  if (event.type === 'charge.succeeded' && event.by === 'new card') {
    return { note: 'The held request of Save card and charge goes through to the server.' }
  }
  return {}
}

/** What else the panel shows after step `i` that the status's words leave out. */
function extras(path: QaPath, i: number): string[] {
  const event = (path.steps[i] as QaStep).event as MembershipModelEvent
  const now = (path.steps[i] as QaStep).state.value
  switch (event.type) {
    case 'cancel.at_period_end':
      return ['"Ends on …: it will not renew." under Scheduled, and Keep membership']
    case 'cancel.undo':
      return ['Cancel at end of term again, and nothing under Scheduled']
    case 'plan.change':
      return [
        `"Moves to ${membershipFixtures.otherPlan} ($45.00) at the next renewal, on …" under Scheduled`,
      ]
    case 'card.update':
      return now === 'active' || now === 'paused'
        ? [`the card ${event.card === 'good' ? 'Visa •••• 4242' : 'Visa •••• 0341'}, expires …`]
        : ["the dialog's Save card and charge busy while the card is saved and charged"]
    case 'charge.succeeded':
      return event.by === 'renewal'
        ? ['"Charged … for cycle 2." in the Membership history']
        : ['"Charged … for cycle 2 (it was …)." in the Membership history']
    case 'charge.failed':
      return event.by === 'charge now' && now === 'past_due'
        ? ['"The renewal was declined 2 times." in the alert']
        : []
    default:
      return []
  }
}

/** The membership flow. */
export const membershipFlow: FlowSpec = {
  id: 'membership',
  title: 'Membership lifecycle',
  intro:
    "A patient's membership on the profile (the Membership panel), from its first paid cycle to its end: what the desk changes with the panel's buttons, and what the billing clock and the test cards bring about (renewals, declined renewals, the retries).",
  viewTest: 'tests/flows/membership/view.test.tsx',
  browser: true,
  sections: [
    {
      key: 'membership',
      model: membershipModel,
      title: 'Membership lifecycle',
      intro:
        'Paths of the lifecycle chart: every status, and every change the chart takes in it, in an order the product allows.',
      host: () => 'local',
      start: () =>
        `As the demo Admin (demo@example.com / DemoPass123), with payments connected in Settings → Payments and the monthly plans ${membershipFixtures.plan} and ${membershipFixtures.otherPlan} in Memberships: add a patient, open the profile, click Start membership, choose ${membershipFixtures.plan}, type ${MEMBERSHIP_CARDS.good}, accept the agreement and click Charge … and start. The replay connects, builds the plans and enrols through the API, then opens the profile.`,
      step,
      extras,
    },
  ],
}
