import {
  Alert,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  PasswordInput,
  Progress,
  Radio,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core'
import { useSelector } from '@xstate/react'
import { useState } from 'react'
import type { ActorRefFrom } from 'xstate'
import { pointsText } from '#domain/points.ts'
import type { CatalogueItem } from '#domain/practice-data.ts'
import type { MemberAtCheckout, VisitPreview } from '#domain/visits.ts'
import {
  aboveCatalogue,
  allowanceLineWords,
  allowanceSentence,
  bankUseAll,
  type CheckoutItem,
  type CheckoutRedemption,
  type checkoutMachine,
  lineAllowance,
  memberPriceSentence,
  multiplierWords,
} from '#machines/checkout/checkout.machine.ts'
import {
  CHECKOUT_STEPS,
  selectBankProblem,
  selectBusy,
  selectDeskCents,
  selectDueCents,
  selectEarnedPoints,
  selectNeedsConsent,
  selectPointsProblem,
  selectResendSecondsLeft,
  selectSpendable,
  selectStepIndex,
  selectTotalCents,
  selectValuation,
} from '#machines/checkout/checkout.selectors.ts'
import { formatCents, formatDate, formatDateTime } from '#src/lib/format.ts'
import { useNow } from '#src/lib/use-now.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { DialogActions } from '#src/ui/dialog-actions.tsx'
import { ButtonLink } from '#src/ui/links.tsx'
import { type PatientChoice, PatientPicker } from '#src/ui/patient-picker.tsx'

type CheckoutActorRef = ActorRefFrom<typeof checkoutMachine>

const points = pointsText

/** A catalogue item as a checkout line. */
export function toCheckoutItem(kind: CheckoutItem['kind'], item: CatalogueItem): CheckoutItem {
  return {
    key: `${kind}-${item.id}`,
    kind,
    item_id: item.id,
    name: item.name,
    quantity: 1,
    price_cents: item.price,
    catalogue_price_cents: item.price,
  }
}

/**
 * The front desk's checkout: one step at a time, each rendered from the checkout
 * machine's state; every click is an event, every call the machine's. The catalogue and the
 * patient search come from the route.
 */
export function CheckoutView({
  actorRef,
  procedures,
  products,
  searchPatients,
}: {
  actorRef: CheckoutActorRef
  procedures: CatalogueItem[]
  products: CatalogueItem[]
  searchPatients: (term: string) => Promise<PatientChoice[]>
}) {
  const step = useSelector(actorRef, selectStepIndex)
  const stepName = CHECKOUT_STEPS[step] ?? 'Done'
  const patient = useSelector(actorRef, (s) => s.context.patient)
  return (
    <Stack gap="lg" maw={760}>
      <Stack gap={4}>
        <Text size="sm" c="dimmed">
          Step {step + 1} of {CHECKOUT_STEPS.length}: {stepName}
        </Text>
        <Progress.Root size="sm">
          <Progress.Section
            value={((step + 1) / CHECKOUT_STEPS.length) * 100}
            aria-label={`Checkout progress: step ${step + 1} of ${CHECKOUT_STEPS.length}`}
          />
        </Progress.Root>
      </Stack>
      {patient && step > 0 && (
        <Text>
          Patient: <strong>{patient.name}</strong>
        </Text>
      )}
      <StepBody
        actorRef={actorRef}
        procedures={procedures}
        products={products}
        searchPatients={searchPatients}
      />
    </Stack>
  )
}

function StepBody(props: {
  actorRef: CheckoutActorRef
  procedures: CatalogueItem[]
  products: CatalogueItem[]
  searchPatients: (term: string) => Promise<PatientChoice[]>
}) {
  const { actorRef } = props
  const state = useSelector(actorRef, (s) =>
    s.matches('choosingPatient')
      ? 'patient'
      : s.matches('editingItems') || s.matches('previewing')
        ? 'items'
        : s.matches('reviewing')
          ? 'review'
          : s.matches('approval')
            ? 'approval'
            : s.matches('consent')
              ? 'consent'
              : s.matches('confirming') || s.matches('submitting')
                ? 'confirm'
                : 'done',
  )
  if (state === 'patient') return <PatientStep {...props} />
  if (state === 'items') return <ItemsStep {...props} />
  if (state === 'review') return <ReviewStep actorRef={actorRef} />
  if (state === 'approval') return <ApprovalStep actorRef={actorRef} />
  if (state === 'consent') return <ConsentStep actorRef={actorRef} />
  if (state === 'confirm') return <ConfirmStep actorRef={actorRef} />
  return <DoneStep actorRef={actorRef} />
}

function StepTitle({ children }: { children: string }) {
  return (
    <Title order={2} size="h3">
      {children}
    </Title>
  )
}

function ErrorAlert({ actorRef }: { actorRef: CheckoutActorRef }) {
  const error = useSelector(actorRef, (s) => s.context.error)
  if (!error) return null
  return (
    <Alert color="red" role="alert" title="This did not work">
      {error}
    </Alert>
  )
}

function PatientStep({
  actorRef,
  searchPatients,
}: {
  actorRef: CheckoutActorRef
  searchPatients: (term: string) => Promise<PatientChoice[]>
}) {
  return (
    <Stack gap="md">
      <StepTitle>Who is checking out?</StepTitle>
      <PatientPicker
        value={null}
        maw={480}
        search={searchPatients}
        onChange={(choice) => {
          if (!choice) return
          const name = choice.label.split(' · ')[0] ?? choice.label
          actorRef.send({ type: 'patient.choose', patient: { id: choice.id, name } })
        }}
      />
    </Stack>
  )
}

function ItemsStep({
  actorRef,
  procedures,
  products,
}: {
  actorRef: CheckoutActorRef
  procedures: CatalogueItem[]
  products: CatalogueItem[]
}) {
  const items = useSelector(actorRef, (s) => s.context.items)
  const canChangePatient = useSelector(actorRef, (s) => s.can({ type: 'patient.change' }))
  const canPreview = useSelector(actorRef, (s) => s.can({ type: 'items.submit' }))
  const busy = useSelector(actorRef, (s) => selectBusy(s) === 'preview')
  const total = useSelector(actorRef, selectTotalCents)
  const add = (kind: CheckoutItem['kind'], list: CatalogueItem[], id: string | null) => {
    const item = list.find((entry) => String(entry.id) === id)
    if (item) actorRef.send({ type: 'item.add', item: toCheckoutItem(kind, item) })
  }
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" gap="sm">
        <StepTitle>What did the visit include?</StepTitle>
        {canChangePatient && (
          <Button
            variant="default"
            size="xs"
            onClick={() => actorRef.send({ type: 'patient.change' })}
          >
            Change patient
          </Button>
        )}
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <Select
          label="Add a procedure"
          placeholder="Choose a procedure"
          searchable
          data={procedures.map((p) => ({
            value: String(p.id),
            label: `${p.name} · ${formatCents(p.price)}`,
          }))}
          value={null}
          onChange={(id) => add('procedure', procedures, id)}
          disabled={busy}
          nothingFoundMessage="No procedure matches"
        />
        <Select
          label="Add a product"
          placeholder="Choose a product"
          searchable
          data={products.map((p) => ({
            value: String(p.id),
            label: `${p.name} · ${formatCents(p.price)}`,
          }))}
          value={null}
          onChange={(id) => add('product', products, id)}
          disabled={busy}
          nothingFoundMessage="No product matches"
        />
      </SimpleGrid>
      {items.length === 0 ? (
        <Text c="dimmed">No items yet. Add the procedures and products of this visit.</Text>
      ) : (
        <Stack
          gap="sm"
          component="ul"
          aria-label="Items of the visit"
          style={{ listStyle: 'none', padding: 0, margin: 0 }}
        >
          {items.map((item) => (
            <Paper key={item.key} withBorder p="sm" radius="md" component="li">
              <Group justify="space-between" align="flex-end" gap="sm" wrap="wrap">
                <Stack gap={0} style={{ minWidth: 0, flex: '1 1 180px' }}>
                  <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                    {item.name}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {item.kind === 'procedure' ? 'Procedure' : 'Product'}
                  </Text>
                </Stack>
                <NumberInput
                  label="Quantity"
                  aria-label={`Quantity of ${item.name}`}
                  w={130}
                  min={1}
                  max={1000}
                  allowDecimal={false}
                  clampBehavior="strict"
                  value={item.quantity}
                  disabled={busy}
                  onChange={(value) => {
                    const quantity = Number(value)
                    if (Number.isInteger(quantity) && quantity >= 1) {
                      actorRef.send({
                        type: 'item.change',
                        key: item.key,
                        quantity,
                        price_cents: item.price_cents,
                      })
                    }
                  }}
                />
                <NumberInput
                  label="Unit price"
                  aria-label={`Unit price of ${item.name}`}
                  w={150}
                  min={0}
                  max={1_000_000}
                  decimalScale={2}
                  prefix="$"
                  clampBehavior="strict"
                  value={item.price_cents / 100}
                  disabled={busy}
                  onChange={(value) => {
                    const dollars = Number(value)
                    if (Number.isFinite(dollars) && dollars >= 0) {
                      actorRef.send({
                        type: 'item.change',
                        key: item.key,
                        quantity: item.quantity,
                        price_cents: Math.round(dollars * 100),
                      })
                    }
                  }}
                />
                <Button
                  variant="subtle"
                  color="red"
                  onClick={() => actorRef.send({ type: 'item.remove', key: item.key })}
                  disabled={busy}
                  aria-label={`Remove ${item.name}`}
                >
                  Remove
                </Button>
              </Group>
              {aboveCatalogue(item) && (
                <Text size="sm" c="orange.9" mt="xs">
                  {formatCents(item.price_cents)} is above the catalogue price of{' '}
                  {formatCents(item.catalogue_price_cents ?? 0)}: a manager's approval will be
                  needed.
                </Text>
              )}
            </Paper>
          ))}
        </Stack>
      )}
      <Text>
        Total: <strong>{formatCents(total)}</strong>
      </Text>
      <ErrorAlert actorRef={actorRef} />
      <Group>
        <Button
          onClick={() => actorRef.send({ type: 'items.submit' })}
          disabled={!canPreview && !busy}
          loading={busy}
        >
          See points
        </Button>
      </Group>
    </Stack>
  )
}

const STATUS_WORDS: Record<MemberAtCheckout['status'], string> = {
  active: 'Active',
  past_due: 'Past due',
  paused: 'Paused',
  unpaid: 'Unpaid',
  cancelled: 'Cancelled',
  ended: 'Ended',
}

/** The status badge's colours, as the profile's membership shows them (each 4.5:1 or more). */
const STATUS_COLORS: Record<MemberAtCheckout['status'], string> = {
  active: 'green',
  past_due: 'orange',
  paused: 'blue',
  // Filled: white on red 9 is 5.5:1.
  unpaid: 'red.9',
  cancelled: 'gray',
  ended: 'gray',
}

/** The member's plan, status and bank, and what the membership does at this visit. */
function MemberBlock({ membership }: { membership: MemberAtCheckout }) {
  const used = membership.allowances.filter((a) => a.used > 0)
  const multiplier = multiplierWords(membership)
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label="Membership">
      <Stack gap={4}>
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Group gap="xs" wrap="wrap">
            <Text fw={700} style={{ overflowWrap: 'anywhere' }}>
              {membership.plan_name}
            </Text>
            <Badge
              color={STATUS_COLORS[membership.status]}
              variant={membership.status === 'unpaid' ? 'filled' : 'light'}
            >
              {STATUS_WORDS[membership.status]}
            </Badge>
          </Group>
          <Text fw={600}>Bank: {formatCents(membership.bank_cents)}</Text>
        </Group>
        {membership.perks_apply ? (
          <>
            {used.map((a) => (
              <Text key={a.catalogue_item_id} size="sm">
                {allowanceSentence(a, membership.interval)}.
              </Text>
            ))}
            {membership.discount_percent > 0 && (
              <Text size="sm">Member price: {membership.discount_percent}% off.</Text>
            )}
            {multiplier && <Text size="sm">Points at this visit: {multiplier}.</Text>}
          </>
        ) : (
          <Text size="sm">No member perks at this visit; the bank can still pay.</Text>
        )}
      </Stack>
    </Paper>
  )
}

/** What the membership does to one line: its included units, its member price. */
function MemberLine({
  membership,
  line,
}: {
  membership: MemberAtCheckout
  line: VisitPreview['lines'][number]
}) {
  const allowance = lineAllowance(membership, line)
  const units = line.allowance_units ?? 0
  const price = memberPriceSentence(membership, line)
  return (
    <>
      {units > 0 && allowance && (
        <Text size="sm" c="teal.9" data-testid="line-allowance">
          Included with the membership: {allowanceLineWords(allowance, membership.interval)}
        </Text>
      )}
      {price && (
        <Text size="sm" c="teal.9" data-testid="line-member-price">
          {price}
        </Text>
      )}
    </>
  )
}

/** A line's unit price; units the membership includes are struck to $0.00. */
function LinePrice({ line }: { line: VisitPreview['lines'][number] }) {
  const units = line.allowance_units ?? 0
  if (units <= 0) {
    return (
      <Text size="sm" c="dimmed">
        {formatCents(line.unit_price_cents)} each
      </Text>
    )
  }
  const charged = line.quantity - units
  return (
    <Text size="sm" c="dimmed" data-testid="line-price">
      {units === line.quantity ? '' : `${units} of ${line.quantity}: `}
      <s>{formatCents(line.unit_price_cents)}</s> $0.00 each
      {charged > 0 ? `; ${charged} at ${formatCents(line.unit_price_cents)} each` : ''}
    </Text>
  )
}

/** A row of the totals: a label and an amount. */
function TotalRow({
  label,
  cents,
  minus,
  strong,
}: {
  label: string
  cents: number
  minus?: boolean
  strong?: boolean
}) {
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap">
      <Text fw={strong ? 700 : undefined}>{label}</Text>
      <Text fw={strong ? 700 : undefined} style={{ whiteSpace: 'nowrap' }}>
        {minus ? '−' : ''}
        {formatCents(cents)}
      </Text>
    </Group>
  )
}

/** The money field of the membership bank, with Use all and its problem next to it. */
function BankField({
  actorRef,
  membership,
}: {
  actorRef: CheckoutActorRef
  membership: MemberAtCheckout
}) {
  const bankCents = useSelector(actorRef, (s) => s.context.bankCents)
  const problem = useSelector(actorRef, selectBankProblem)
  const canUseAll = useSelector(actorRef, (s) => s.can({ type: 'bank.useAll' }))
  const all = useSelector(actorRef, (s) => bankUseAll(s.context))
  // The amount as typed, kept while the field is being edited.
  const [typed, setTyped] = useState<string | number>(bankCents > 0 ? bankCents / 100 : '')
  const useAll = (
    <Button
      variant="default"
      style={{ flexShrink: 0 }}
      disabled={!canUseAll}
      onClick={() => {
        actorRef.send({ type: 'bank.useAll' })
        setTyped(actorRef.getSnapshot().context.bankCents / 100)
      }}
      aria-label={`Use all: ${formatCents(all)} from the bank`}
    >
      Use all
    </Button>
  )
  return (
    <NumberInput
      label="Paid from the membership bank"
      description={`Bank: ${formatCents(membership.bank_cents)}. Any amount from the bank needs the patient's code.`}
      maw={420}
      min={0}
      decimalScale={2}
      allowNegative={false}
      thousandSeparator=","
      prefix="$"
      value={typed}
      error={bankCents === 0 ? undefined : (problem ?? undefined)}
      // Use all sits next to the amount, above its message.
      inputContainer={(input) => (
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <div style={{ flex: 1, minWidth: 0 }}>{input}</div>
          {useAll}
        </Group>
      )}
      onChange={(value) => {
        setTyped(value)
        const dollars = Number(value)
        actorRef.send({
          type: 'bank.change',
          cents: Number.isFinite(dollars) ? Math.round(dollars * 100) : 0,
        })
      }}
    />
  )
}

function ReviewStep({ actorRef }: { actorRef: CheckoutActorRef }) {
  const preview = useSelector(actorRef, (s) => s.context.preview)
  const offers = useSelector(actorRef, (s) => s.context.offers)
  const redemption = useSelector(actorRef, (s) => s.context.redemption)
  const problem = useSelector(actorRef, selectPointsProblem)
  const needsCode = useSelector(actorRef, selectNeedsConsent)
  const spendable = useSelector(actorRef, selectSpendable)
  const canContinue = useSelector(actorRef, (s) => s.can({ type: 'review.submit' }))
  const approval = useSelector(actorRef, (s) => s.context.approval)
  const desk = useSelector(actorRef, selectDeskCents)
  // The chosen offer's value on these lines, as the server worked it out.
  const valuation = useSelector(actorRef, selectValuation)
  // The typed amount, kept as typed while it is not a whole number yet.
  const [typed, setTyped] = useState<string | number>(
    redemption.kind === 'points' ? redemption.points : '',
  )
  // Points redeemed together with an offer, as typed.
  const [extra, setExtra] = useState<string | number>(
    redemption.kind === 'promotion' && redemption.points ? redemption.points : '',
  )
  if (!preview) return null
  const membership = preview.membership ?? null
  const multiplier = multiplierWords(membership)
  const subtotal =
    preview.subtotal_cents ??
    preview.lines.reduce((sum, line) => sum + line.unit_price_cents * line.quantity, 0)
  const choice =
    redemption.kind === 'promotion' ? `promotion-${redemption.promotion_id}` : redemption.kind
  const offerRedemption = (
    offer: { promotion_id: number; title: string },
    more: string | number,
  ): CheckoutRedemption => ({
    kind: 'promotion',
    promotion_id: offer.promotion_id,
    title: offer.title,
    ...(Number(more) ? { points: Number(more) } : {}),
  })
  const choose = (value: string) => {
    let next: CheckoutRedemption = { kind: 'none' }
    if (value === 'points') next = { kind: 'points', points: Number(typed) || 0 }
    const offer = offers.find((o) => `promotion-${o.promotion_id}` === value)
    if (offer) next = offerRedemption(offer, extra)
    actorRef.send({ type: 'redemption.choose', redemption: next })
  }
  const offerOff = valuation && !valuation.problem ? valuation.discount_cents : 0
  return (
    <Stack gap="md">
      <StepTitle>Points for this visit</StepTitle>
      {membership?.flag && (
        <Alert color="orange" title="Member perks are on hold" data-testid="member-flag">
          {membership.flag}
        </Alert>
      )}
      {membership && <MemberBlock membership={membership} />}
      <Stack
        gap="xs"
        component="ul"
        aria-label="Points per item"
        style={{ listStyle: 'none', padding: 0, margin: 0 }}
      >
        {preview.lines.map((line, index) => {
          const linePoints = valuation?.lines[index]?.points ?? line.points
          return (
            <Paper
              key={`${line.kind}-${line.item_id}`}
              withBorder
              p="sm"
              radius="md"
              component="li"
            >
              <Group justify="space-between" gap="xs" wrap="wrap">
                <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {line.quantity} × {line.name}
                </Text>
                {line.refused ? (
                  <Badge color="gray" variant="light">
                    No points
                  </Badge>
                ) : (
                  <Group gap="xs">
                    {line.points > preview.max_points_per_line && (
                      <Badge color="orange" variant="light">
                        Unusual
                      </Badge>
                    )}
                    {multiplier && linePoints > 0 && (
                      <Badge color="grape" variant="light">
                        {multiplier}
                      </Badge>
                    )}
                    <Text fw={600}>+{points(linePoints)}</Text>
                  </Group>
                )}
              </Group>
              <LinePrice line={line} />
              {membership && <MemberLine membership={membership} line={line} />}
              {(valuation?.lines[index]?.discount_cents ?? 0) > 0 && (
                <Text size="sm" c="teal.9" data-testid="line-discount">
                  Offer: −{formatCents(valuation?.lines[index]?.discount_cents ?? 0)}, pays{' '}
                  {formatCents(
                    line.unit_price_cents * line.quantity -
                      (line.allowance_units ?? 0) * line.unit_price_cents -
                      (line.member_discount_cents ?? 0) -
                      (valuation?.lines[index]?.discount_cents ?? 0),
                  )}
                </Text>
              )}
              {line.refused && (
                <Text size="sm" c="dimmed">
                  {line.name} earns points again on {formatDate(line.refused.opens_on)}.
                </Text>
              )}
            </Paper>
          )
        })}
      </Stack>
      <Stack gap={2}>
        {valuation && !valuation.problem ? (
          <Text data-testid="visit-earns">
            With {valuation.value}, this visit costs{' '}
            <strong>{formatCents(valuation.total_cents)}</strong> instead of{' '}
            {formatCents(preview.total_cents)} and earns <strong>{points(valuation.points)}</strong>
            .
          </Text>
        ) : (
          <Text data-testid="visit-earns">
            This visit earns <strong>{points(preview.points)}</strong> for{' '}
            {formatCents(preview.total_cents)}.
          </Text>
        )}
        <Text>
          Balance before the visit: {points(preview.balance)} (worth{' '}
          {formatCents(preview.balance * preview.point_value_cents)}).
        </Text>
      </Stack>
      {preview.approval_needed.length > 0 &&
        (approval ? (
          <Alert color="green" title="Approved">
            Approved by {approval.approved_by.first_name} {approval.approved_by.last_name}.
          </Alert>
        ) : (
          <Alert color="orange" title="A manager's approval is needed">
            <Stack gap={4}>
              {preview.approval_needed.map((reason) => (
                <Text key={reason} size="sm">
                  {reason}
                </Text>
              ))}
              <Text size="sm">Continue asks a manager to approve it with a reason.</Text>
            </Stack>
          </Alert>
        ))}
      <Radio.Group
        label="Redeem at this visit"
        description={`The patient can redeem up to ${points(spendable)}.`}
        value={choice}
        onChange={choose}
      >
        <Stack gap="xs" mt="xs">
          <Radio value="none" label="Nothing" />
          <Radio value="points" label="Points" />
          {offers.map((offer) => (
            <Radio
              key={offer.promotion_id}
              value={`promotion-${offer.promotion_id}`}
              label={`${offer.title} (claimed offer${offer.value ? `, ${offer.value.value}` : ''}${offer.bonus > 0 ? `, ${points(offer.bonus)} bonus` : ''})`}
            />
          ))}
        </Stack>
      </Radio.Group>
      {redemption.kind === 'points' && (
        <NumberInput
          label="Points to redeem"
          description={
            preview.redemption_code_threshold > 0
              ? `Above ${points(preview.redemption_code_threshold)} the patient's code is needed.`
              : "The patient's code is needed for any points."
          }
          maw={260}
          min={1}
          allowDecimal={false}
          allowNegative={false}
          value={typed}
          error={typed === '' ? undefined : (problem ?? undefined)}
          onChange={(value) => {
            setTyped(value)
            actorRef.send({
              type: 'redemption.choose',
              redemption: { kind: 'points', points: Number(value) || 0 },
            })
          }}
        />
      )}
      {redemption.kind === 'promotion' && valuation?.problem && (
        <Alert color="orange" title="This offer does not apply to this visit">
          {valuation.problem}
        </Alert>
      )}
      {redemption.kind === 'promotion' && !valuation?.problem && (
        <NumberInput
          label="Points to redeem as well"
          description="Optional: points for a reward at the same visit."
          maw={260}
          min={1}
          allowDecimal={false}
          allowNegative={false}
          value={extra}
          error={extra === '' ? undefined : (problem ?? undefined)}
          onChange={(value) => {
            setExtra(value)
            const offer = offers.find((o) => o.promotion_id === redemption.promotion_id)
            if (offer) {
              actorRef.send({
                type: 'redemption.choose',
                redemption: offerRedemption(offer, value),
              })
            }
          }}
        />
      )}
      <Paper withBorder p="sm" radius="md" component="section" aria-label="Totals">
        <Stack gap={6}>
          <TotalRow label="Subtotal" cents={subtotal} />
          {(membership?.allowance_cents ?? 0) > 0 && (
            <TotalRow
              label="Included with the membership"
              cents={membership?.allowance_cents ?? 0}
              minus
            />
          )}
          {(membership?.member_discount_cents ?? 0) > 0 && (
            <TotalRow label="Member price" cents={membership?.member_discount_cents ?? 0} minus />
          )}
          {offerOff > 0 && <TotalRow label="Offer" cents={offerOff} minus />}
          {membership && membership.bank_cents > 0 && (
            <BankField actorRef={actorRef} membership={membership} />
          )}
          <TotalRow label="Due at the desk" cents={desk} strong />
        </Stack>
      </Paper>
      {needsCode && <Text size="sm">The next step asks for the patient's code from an SMS.</Text>}
      <Group gap="sm">
        <Button variant="default" onClick={() => actorRef.send({ type: 'items.edit' })}>
          Edit items
        </Button>
        <Button onClick={() => actorRef.send({ type: 'review.submit' })} disabled={!canContinue}>
          Continue
        </Button>
      </Group>
    </Stack>
  )
}

function ApprovalStep({ actorRef }: { actorRef: CheckoutActorRef }) {
  const reasons = useSelector(actorRef, (s) => s.context.preview?.approval_needed ?? [])
  const fields = useSelector(actorRef, (s) => s.context.approvalFields)
  const canApprove = useSelector(actorRef, (s) => s.context.canApprove)
  const busy = useSelector(actorRef, (s) => selectBusy(s) === 'approve')
  const canSubmit = useSelector(actorRef, (s) => s.can({ type: 'approval.submit' }))
  const change = (next: Partial<typeof fields>) =>
    actorRef.send({ type: 'approval.change', fields: next })
  return (
    <Stack gap="md">
      <StepTitle>A manager's approval</StepTitle>
      <Stack gap={4}>
        {reasons.map((reason) => (
          <Text key={reason}>{reason}</Text>
        ))}
      </Stack>
      <Text size="sm" c="dimmed">
        {canApprove
          ? 'You approve it yourself: the reason is kept with the visit and in the activity log.'
          : 'A manager or an admin signs in here to approve it; the reason is kept with the visit and in the activity log. Without the approval, go back and use the catalogue price.'}
      </Text>
      <Textarea
        label="Reason for the approval"
        maxLength={500}
        autosize
        minRows={2}
        value={fields.reason}
        disabled={busy}
        onChange={(event) => change({ reason: event.currentTarget.value })}
      />
      {!canApprove && (
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput
            label="Manager's e-mail"
            type="email"
            autoComplete="off"
            value={fields.email}
            disabled={busy}
            onChange={(event) => change({ email: event.currentTarget.value })}
          />
          <PasswordInput
            label="Manager's password"
            autoComplete="off"
            value={fields.password}
            disabled={busy}
            onChange={(event) => change({ password: event.currentTarget.value })}
          />
        </SimpleGrid>
      )}
      <ErrorAlert actorRef={actorRef} />
      <Group gap="sm">
        <Button
          variant="default"
          onClick={() => actorRef.send({ type: 'approval.back' })}
          disabled={busy}
        >
          Back
        </Button>
        <Button
          onClick={() => actorRef.send({ type: 'approval.submit' })}
          disabled={!canSubmit && !busy}
          loading={busy}
        >
          Approve
        </Button>
      </Group>
    </Stack>
  )
}

function ConsentStep({ actorRef }: { actorRef: CheckoutActorRef }) {
  const mode = useSelector(actorRef, (s) =>
    s.matches({ consent: 'override' }) ? 'override' : 'code',
  )
  const redemption = useSelector(actorRef, (s) => s.context.redemption)
  const canOverride = useSelector(actorRef, (s) => s.can({ type: 'consent.useOverride' }))
  const canSubmit = useSelector(actorRef, (s) => s.can({ type: 'consent.submit' }))
  const checking = useSelector(actorRef, (s) => selectBusy(s) === 'check')
  const bankCents = useSelector(actorRef, (s) => s.context.bankCents)
  const bank = bankCents > 0 ? `${formatCents(bankCents)} from the membership bank` : null
  const redeemed =
    redemption.kind === 'none'
      ? null
      : `redeem ${redemption.kind === 'points' ? points(redemption.points) : 'this offer'}`
  // What the patient agrees to: "redeem 300 points and pay $25.00 from the membership bank".
  const spent = [redeemed, bank && `pay ${bank}`].filter(Boolean).join(' and ')
  return (
    <Stack gap="md">
      <StepTitle>The patient's consent</StepTitle>
      {mode === 'code' ? (
        <CodeFields actorRef={actorRef} spent={spent} bank={bank} />
      ) : (
        <OverrideFields actorRef={actorRef} spent={spent} />
      )}
      <ErrorAlert actorRef={actorRef} />
      <Group gap="sm">
        <Button variant="default" onClick={() => actorRef.send({ type: 'consent.back' })}>
          Back
        </Button>
        <Button
          onClick={() => actorRef.send({ type: 'consent.submit' })}
          disabled={!canSubmit && !checking}
          loading={checking}
        >
          Continue
        </Button>
      </Group>
      {mode === 'code' && canOverride && (
        <Group>
          <Button variant="subtle" onClick={() => actorRef.send({ type: 'consent.useOverride' })}>
            Use a manager override
          </Button>
        </Group>
      )}
    </Stack>
  )
}

function CodeFields({
  actorRef,
  spent,
  bank,
}: {
  actorRef: CheckoutActorRef
  spent: string
  bank: string | null
}) {
  const sent = useSelector(
    actorRef,
    (s) => s.matches({ consent: { code: 'sent' } }) || s.matches({ consent: { code: 'checking' } }),
  )
  const checking = useSelector(actorRef, (s) => selectBusy(s) === 'check')
  const cooling = useSelector(actorRef, (s) =>
    s.matches({ consent: { code: { sent: 'coolingDown' } } }),
  )
  const busy = useSelector(actorRef, (s) => selectBusy(s) === 'code')
  const canSend = useSelector(actorRef, (s) => s.can({ type: 'code.send' }))
  const code = useSelector(actorRef, (s) => s.context.code)
  const now = useNow(cooling)
  const secondsLeft = useSelector(actorRef, (s) => selectResendSecondsLeft(s, now))
  return (
    <Stack gap="sm">
      <Text>To {spent}, the patient confirms with a 6-digit code we text to their phone.</Text>
      {bank && (
        <Text size="sm" data-testid="code-amount">
          The text message names the amount: {bank}. The code pays only that amount.
        </Text>
      )}
      {sent && (
        <TextInput
          label="SMS code"
          description={
            checking
              ? 'Checking the code…'
              : 'Ask the patient for the code in the text message; it is checked as soon as it is typed.'
          }
          readOnly={checking}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          maw={220}
          value={code}
          onChange={(event) =>
            actorRef.send({ type: 'code.change', code: event.currentTarget.value.trim() })
          }
        />
      )}
      <Group>
        <Button
          variant={sent ? 'default' : 'filled'}
          onClick={() => actorRef.send({ type: 'code.send' })}
          disabled={!canSend && !busy}
          loading={busy}
        >
          {sent ? (cooling ? `Resend code in ${secondsLeft} s` : 'Resend code') : 'Get code'}
        </Button>
      </Group>
    </Stack>
  )
}

function OverrideFields({ actorRef, spent }: { actorRef: CheckoutActorRef; spent: string }) {
  const reason = useSelector(actorRef, (s) => s.context.reason)
  return (
    <Stack gap="sm">
      <Text>
        {spent.charAt(0).toUpperCase()}
        {spent.slice(1)} without the patient's code. The reason is kept with the redemption.
      </Text>
      <Textarea
        label="Reason for the override"
        maxLength={500}
        autosize
        minRows={2}
        value={reason}
        onChange={(event) =>
          actorRef.send({ type: 'override.change', reason: event.currentTarget.value })
        }
      />
      <Group>
        <Button variant="subtle" onClick={() => actorRef.send({ type: 'consent.useCode' })}>
          Use the patient's code instead
        </Button>
      </Group>
    </Stack>
  )
}

function ConfirmStep({ actorRef }: { actorRef: CheckoutActorRef }) {
  const context = useSelector(actorRef, (s) => s.context)
  const busy = useSelector(actorRef, (s) => selectBusy(s) === 'record')
  const total = useSelector(actorRef, selectDueCents)
  const desk = useSelector(actorRef, selectDeskCents)
  const earned = useSelector(actorRef, selectEarnedPoints)
  const valuation = useSelector(actorRef, selectValuation)
  const { redemption, consent, bankCents } = context
  const membership = context.preview?.membership ?? null
  const multiplier = multiplierWords(membership)
  const consentWords =
    consent?.kind === 'code'
      ? ", with the patient's code"
      : consent?.kind === 'override'
        ? ', with a manager override'
        : ''
  const used = membership?.perks_apply ? membership.allowances.filter((a) => a.used > 0) : []
  const redeemed =
    redemption.kind === 'points'
      ? `${points(redemption.points)}`
      : redemption.kind === 'promotion'
        ? `the offer ${redemption.title}${redemption.points ? ` and ${points(redemption.points)}` : ''}`
        : 'nothing'
  return (
    <Stack gap="md">
      <StepTitle>Confirm the visit</StepTitle>
      <Paper withBorder p="md" radius="md">
        <Stack gap="xs">
          {context.items.map((item, index) => {
            const discount = valuation?.lines[index]?.discount_cents ?? 0
            const line = context.preview?.lines[index]
            const included = (line?.allowance_units ?? 0) * (line?.unit_price_cents ?? 0)
            const memberOff = line?.member_discount_cents ?? 0
            return (
              <Stack key={item.key} gap={0}>
                <Group justify="space-between" gap="xs" wrap="wrap">
                  <Text style={{ overflowWrap: 'anywhere' }}>
                    {item.quantity} × {item.name}
                  </Text>
                  <Text>{formatCents(item.quantity * item.price_cents)}</Text>
                </Group>
                {included > 0 && (
                  <Group justify="space-between" gap="xs" wrap="wrap">
                    <Text size="sm" c="teal.9">
                      Included with the membership ({line?.allowance_units} ×)
                    </Text>
                    <Text size="sm" c="teal.9">
                      −{formatCents(included)}
                    </Text>
                  </Group>
                )}
                {memberOff > 0 && (
                  <Group justify="space-between" gap="xs" wrap="wrap">
                    <Text size="sm" c="teal.9">
                      Member price ({membership?.discount_percent}%)
                    </Text>
                    <Text size="sm" c="teal.9">
                      −{formatCents(memberOff)}
                    </Text>
                  </Group>
                )}
                {discount > 0 && (
                  <Group justify="space-between" gap="xs" wrap="wrap">
                    <Text size="sm" c="teal.9">
                      {valuation?.value}
                    </Text>
                    <Text size="sm" c="teal.9">
                      −{formatCents(discount)}
                    </Text>
                  </Group>
                )}
              </Stack>
            )
          })}
          <Group justify="space-between" gap="xs">
            <Text fw={700}>Total</Text>
            <Text fw={700} data-testid="visit-total">
              {formatCents(total)}
            </Text>
          </Group>
          {bankCents > 0 && (
            <>
              <Group justify="space-between" gap="xs">
                <Text>
                  Paid from the membership bank{redemption.kind === 'none' ? consentWords : ''}
                </Text>
                <Text data-testid="visit-bank">−{formatCents(bankCents)}</Text>
              </Group>
              <Group justify="space-between" gap="xs">
                <Text fw={700}>Due at the desk</Text>
                <Text fw={700} data-testid="visit-desk">
                  {formatCents(desk)}
                </Text>
              </Group>
            </>
          )}
          {used.map((a) => (
            <Text key={a.catalogue_item_id}>
              Uses {allowanceSentence(a, membership?.interval ?? 'month')}.
            </Text>
          ))}
          <Text>
            Points earned: {points(earned)}
            {multiplier && earned > 0 ? ` (${multiplier})` : ''}
          </Text>
          {context.approval && (
            <Text>
              Approved by {context.approval.approved_by.first_name}{' '}
              {context.approval.approved_by.last_name}: {context.approvalFields.reason.trim()}
            </Text>
          )}
          {(redemption.kind !== 'none' || bankCents === 0) && (
            <Text>
              Redeemed: {redeemed}
              {consentWords}
            </Text>
          )}
        </Stack>
      </Paper>
      <ErrorAlert actorRef={actorRef} />
      <Group gap="sm">
        <Button
          variant="default"
          onClick={() => actorRef.send({ type: 'confirm.back' })}
          disabled={busy}
        >
          Back
        </Button>
        <Button onClick={() => actorRef.send({ type: 'visit.confirm' })} loading={busy}>
          Confirm visit
        </Button>
      </Group>
    </Stack>
  )
}

function DoneStep({ actorRef }: { actorRef: CheckoutActorRef }) {
  const result = useSelector(actorRef, (s) => s.context.result)
  const patient = useSelector(actorRef, (s) => s.context.patient)
  const undone = useSelector(actorRef, (s) => s.matches('undone'))
  const undoneBalance = useSelector(actorRef, (s) => s.context.undoneBalance)
  const undoneBank = useSelector(actorRef, (s) => s.context.undoneBank)
  const membership = useSelector(actorRef, (s) => s.context.preview?.membership ?? null)
  const canUndo = useSelector(actorRef, (s) => s.can({ type: 'visit.undo' }))
  const undoing = useSelector(actorRef, (s) => selectBusy(s) === 'undo')
  const [asking, setAsking] = useState(false)
  if (!result) return null
  const earned = result.entries.filter((e) => e.kind === 'earn').reduce((n, e) => n + e.points, 0)
  const redeemed = result.entries
    .filter((e) => e.kind === 'redeem')
    .reduce((n, e) => n + Math.abs(e.points), 0)
  const bonus = result.entries.filter((e) => e.kind === 'bonus').reduce((n, e) => n + e.points, 0)
  const { visit } = result
  const bank = visit.bank_cents ?? 0
  const included = result.lines
    .filter((line) => (line.allowance_units ?? 0) > 0)
    .map((line) => `${line.allowance_units} × ${line.name}`)
  const memberOff = (visit.allowance_cents ?? 0) + (visit.member_discount_cents ?? 0)
  const used = membership?.perks_apply ? membership.allowances.filter((a) => a.used > 0) : []
  return (
    <Stack gap="md">
      {undone ? (
        <Alert color="green" role="status" title="Visit undone">
          Its points were reversed. The balance is back to {points(undoneBalance ?? 0)}.
          {bank > 0 &&
            ` ${formatCents(bank)} went back to the membership bank${undoneBank !== null ? `: bank now ${formatCents(undoneBank)}` : ''}.`}
          {included.length > 0 && ` The membership includes ${included.join(', ')} again.`}
        </Alert>
      ) : (
        <Alert color="green" role="status" title="Visit recorded">
          {patient?.name} earned {points(earned)}
          {redeemed > 0 ? ` and redeemed ${points(redeemed)}` : ''}
          {bonus > 0 ? `, with a bonus of ${points(bonus)}` : ''}. The balance is now{' '}
          {points(result.balance)}.
          {(result.visit.discount_cents ?? 0) > 0 &&
            ` The offer took ${formatCents(result.visit.discount_cents ?? 0)} off: the visit comes to ${formatCents(result.visit.total_cents)}.`}
          {memberOff > 0 &&
            ` The membership took ${formatCents(memberOff)} off${(visit.allowance_cents ?? 0) > 0 && (visit.member_discount_cents ?? 0) > 0 ? ` (included ${formatCents(visit.allowance_cents ?? 0)}, member price ${formatCents(visit.member_discount_cents ?? 0)})` : ''}.`}
          {used.map((a) => ` Used ${allowanceSentence(a, membership?.interval ?? 'month')}.`)}
          {bank > 0 &&
            ` Paid from the membership bank: ${formatCents(bank)}${result.membership_bank_cents != null ? ` · bank now ${formatCents(result.membership_bank_cents)}` : ''}. Due at the desk: ${formatCents(Math.max(0, visit.total_cents - bank))}.`}
        </Alert>
      )}
      <ErrorAlert actorRef={actorRef} />
      {!undone && (canUndo || undoing) && (
        <Text size="sm">
          You can undo this visit until {formatDateTime(result.visit.undo_until)}.
        </Text>
      )}
      <Group gap="sm">
        {!undone && (canUndo || undoing) && (
          <Button variant="default" color="red" onClick={() => setAsking(true)} loading={undoing}>
            Undo visit
          </Button>
        )}
        {patient && (
          <ButtonLink
            to="/patients/$patientId"
            params={{ patientId: String(patient.id) }}
            variant="default"
          >
            Open the patient's profile
          </ButtonLink>
        )}
        <ButtonLink to="/checkout" search={{}} reloadDocument>
          Record another visit
        </ButtonLink>
      </Group>
      <AppModal
        opened={asking}
        onClose={() => setAsking(false)}
        title="Undo this visit?"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack gap="md">
          <Text>
            The points it earned and redeemed are reversed and a redeemed offer goes back to the
            patient.
            {bank > 0 && ` ${formatCents(bank)} goes back to the membership bank.`}
            {included.length > 0 &&
              ` The included treatments (${included.join(', ')}) can be used again.`}
            {result.visit.appointment_id !== null && ' The appointment is open again.'}
          </Text>
          <DialogActions
            busy={false}
            actionLabel="Undo visit"
            color="red"
            onCancel={() => setAsking(false)}
            onAction={() => {
              setAsking(false)
              actorRef.send({ type: 'visit.undo' })
            }}
          />
        </Stack>
      </AppModal>
    </Stack>
  )
}
