/**
 * Nextech bills to points (NEXTECH.md section 2, "Mapping"). Each line of an active bill
 * (`Claim`, `use: complete`) earns through the ledger like a checkout line: the catalogue item its
 * service code maps to (its points, its minimum days between awards), else the price times the
 * points per dollar. A line is one row of `nextech_claim_lines`, written in the transaction that
 * posts its entry under the patient's lock, so a bill read twice, or by two processes, posts
 * once. A voided bill or line reverses exactly what it earned; a corrected bill is a voided one
 * and a new one, so the patient ends with the difference. When the points were already spent the
 * reversal is not forced: the line waits in the review queue with the ledger's sentence. Quotes
 * earn nothing.
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { LEDGER_MESSAGES, pointsForItem } from '#domain/ledger.ts'
import { NEXTECH_SYNC_MESSAGES, type NextechCounts, NO_NEXTECH_COUNTS } from '#domain/nextech.ts'
import { DAY_MS } from '#domain/time.ts'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import {
  ledgerEntries,
  nextechClaimLines,
  nextechConnections,
  nextechReviews,
  nextechServiceCodes,
  patients,
  procedures,
  products,
} from '#server/db/schema.ts'
import { createLedger, LedgerError, readProgrammeRules } from '#server/modules/ledger/index.ts'
import { lastVisitAward } from '#server/modules/visits/index.ts'
import type { NextechClaim } from '#server/nextech/resources.ts'
import { linkedPatients } from './patients.ts'
import { createReferrals } from './referrals.ts'

type Context = Pick<ServerContext, 'db' | 'now'>

type LineRow = typeof nextechClaimLines.$inferSelect

const day = (date: Date) => date.toISOString().slice(0, 10)

/** What pricing reads once per page of bills: the rules, the award day, the code mappings. */
export type PricingBasis = {
  rules: Awaited<ReturnType<typeof readProgrammeRules>>
  awardFrom: string | null
  mappings: Map<string, typeof nextechServiceCodes.$inferSelect>
  /** The mapped catalogue items, by `procedure:id` or `product:id`. */
  items: Map<string, { name: string; points: number | null; min_days: number }>
}

/** What an active line of a linked patient earns, or why not. */
type Pricing =
  | { state: 'earn'; points: number }
  | { state: 'none'; note: string }
  | { state: 'review'; points: number; message: string }

export function createBills(ctx: Context) {
  const { db, now } = ctx
  const ledger = createLedger({ db, now })
  const referrals = createReferrals({ db, now })

  /** Locks the Glow patient (the one a merge kept, if merged); null when there is none. */
  async function lockPatient(tx: Transaction, practiceId: number, patientId: number) {
    for (let id = patientId, hops = 0; hops < 3; hops += 1) {
      const [row] = await tx
        .select({
          id: patients.id,
          points: patients.points,
          merged_into_id: patients.merged_into_id,
        })
        .from(patients)
        .where(and(eq(patients.id, id), eq(patients.practice_id, practiceId)))
        .for('update')
      if (!row) return null
      if (row.merged_into_id === null) return row
      id = row.merged_into_id
    }
    return null
  }

  /** The most recent award of a catalogue item to a patient (a visit's line or a bill's). */
  async function lastAward(
    tx: Transaction,
    patientId: number,
    kind: 'procedure' | 'product',
    itemId: number,
    except: number,
  ): Promise<string | null> {
    const [fromBills] = await tx
      .select({ on: sql<string | null>`max(${nextechClaimLines.billed_on})::text` })
      .from(nextechClaimLines)
      .where(
        and(
          eq(nextechClaimLines.patient_id, patientId),
          eq(nextechClaimLines.state, 'earned'),
          kind === 'procedure'
            ? eq(nextechClaimLines.procedure_id, itemId)
            : eq(nextechClaimLines.product_id, itemId),
          sql`${nextechClaimLines.id} <> ${except}`,
        ),
      )
    const fromVisits = await lastVisitAward(tx, patientId, kind, itemId)
    const days = [fromBills?.on, fromVisits ? day(fromVisits) : null].filter(
      (value): value is string => !!value,
    )
    return days.length === 0 ? null : (days.sort().at(-1) ?? null)
  }

  /** The practice's pricing basis, read once for a page of bills. */
  async function basisOf(ex: Transaction | typeof db, practiceId: number): Promise<PricingBasis> {
    const [rules, [connection], mappings] = await Promise.all([
      readProgrammeRules(ex, practiceId),
      ex
        .select({ award_from: nextechConnections.award_from })
        .from(nextechConnections)
        .where(eq(nextechConnections.practice_id, practiceId)),
      ex.select().from(nextechServiceCodes).where(eq(nextechServiceCodes.practice_id, practiceId)),
    ])
    const items = new Map<string, { name: string; points: number | null; min_days: number }>()
    for (const [kind, table] of [
      ['procedure', procedures],
      ['product', products],
    ] as const) {
      const ids = mappings
        .map((mapping) => (kind === 'procedure' ? mapping.procedure_id : mapping.product_id))
        .filter((id): id is number => id !== null)
      if (ids.length === 0) continue
      const rows = await ex
        .select({
          id: table.id,
          name: table.name,
          points: table.points,
          min_days: table.min_days_between,
        })
        .from(table)
        .where(inArray(table.id, ids))
      for (const row of rows) items.set(`${kind}:${row.id}`, row)
    }
    return {
      rules,
      awardFrom: connection?.award_from ? String(connection.award_from) : null,
      mappings: new Map(mappings.map((mapping) => [mapping.code, mapping])),
      items,
    }
  }

  /**
   * What a line earns without reading anything more, or `slow` when its item has a minimum
   * number of days between awards (that needs the patient's last award).
   */
  function quickPrice(
    line: Pick<LineRow, 'code' | 'billed_on' | 'quantity' | 'net_cents'>,
    basis: PricingBasis,
    { minDays = true }: { minDays?: boolean } = {},
  ): (Pricing & { procedure_id: number | null; product_id: number | null }) | 'slow' {
    const { rules, awardFrom, mappings, items } = basis
    const billedOn = line.billed_on ? String(line.billed_on) : day(now())
    const mapping = line.code ? mappings.get(line.code) : undefined
    const mapped = {
      procedure_id: mapping?.procedure_id ?? null,
      product_id: mapping?.product_id ?? null,
    }
    if (awardFrom && billedOn < awardFrom) {
      return { state: 'none', note: NEXTECH_SYNC_MESSAGES.beforeAwardDay(awardFrom), ...mapped }
    }
    const unitCents =
      line.quantity > 0 ? Math.round(line.net_cents / line.quantity) : line.net_cents
    let points: number
    if (mapping) {
      const key =
        mapping.procedure_id !== null
          ? `procedure:${mapping.procedure_id}`
          : `product:${mapping.product_id}`
      const item = items.get(key)
      if (minDays && item && item.min_days > 0) return 'slow'
      points = pointsForItem(
        { points: item?.points ?? null, price: unitCents },
        Math.max(1, line.quantity),
        rules,
      )
    } else {
      points = Math.floor((line.net_cents / 100) * rules.points_per_dollar)
    }
    if (points <= 0) return { state: 'none', note: 'This line earns no points.', ...mapped }
    if (rules.max_points_per_line > 0 && points > rules.max_points_per_line) {
      return {
        state: 'review',
        points,
        message: NEXTECH_SYNC_MESSAGES.ceiling(points, rules.max_points_per_line),
        ...mapped,
      }
    }
    return { state: 'earn', points, ...mapped }
  }

  /** What `line` earns for `patientId`, under the practice's rules and the code's mapping. */
  async function price(
    tx: Transaction,
    practiceId: number,
    line: LineRow,
    patientId: number,
    basis?: PricingBasis,
  ): Promise<Pricing & { procedure_id: number | null; product_id: number | null }> {
    const known = basis ?? (await basisOf(tx, practiceId))
    const pricing = quickPrice(line, known, { minDays: false })
    if (pricing === 'slow' || pricing.state === 'none')
      return pricing as Exclude<typeof pricing, 'slow'>
    const kind = pricing.procedure_id !== null ? 'procedure' : 'product'
    const itemId = pricing.procedure_id ?? pricing.product_id
    const item = itemId === null ? undefined : known.items.get(`${kind}:${itemId}`)
    if (!item || itemId === null || item.min_days <= 0) return pricing
    const last = await lastAward(tx, patientId, kind, itemId, line.id)
    const billedOn = line.billed_on ? String(line.billed_on) : day(now())
    if (last) {
      const opensOn = day(new Date(Date.parse(`${last}T00:00:00Z`) + item.min_days * DAY_MS))
      if (billedOn < opensOn) {
        return {
          state: 'none',
          note: VISIT_MESSAGES.earnsAgainOn(item.name, opensOn),
          procedure_id: pricing.procedure_id,
          product_id: pricing.product_id,
        }
      }
    }
    return pricing
  }

  async function openReview(
    tx: Transaction,
    practiceId: number,
    kind: 'reversal' | 'ceiling',
    line: LineRow,
    message: string,
  ) {
    await tx
      .insert(nextechReviews)
      .values({
        practice_id: practiceId,
        kind,
        subject: `${line.claim_id}/${line.line_id}`,
        message,
        details: { line_id: line.id },
      })
      .onConflictDoNothing()
  }

  async function closeReviews(
    tx: Transaction,
    practiceId: number,
    line: LineRow,
    resolution: string,
  ) {
    await tx
      .update(nextechReviews)
      .set({ resolution, resolved_at: now() })
      .where(
        and(
          eq(nextechReviews.practice_id, practiceId),
          eq(nextechReviews.subject, `${line.claim_id}/${line.line_id}`),
          isNull(nextechReviews.resolved_at),
        ),
      )
  }

  /**
   * Earns `line` for its linked patient in `tx` (the line's row is locked): posts the entry or
   * records why not. `userId` is the Admin who awarded a line above the ceiling.
   */
  async function earn(
    tx: Transaction,
    practiceId: number,
    line: LineRow,
    patientId: number,
    counts: NextechCounts | null,
    award?: { userId: number; points: number },
    basis?: PricingBasis,
  ) {
    const patient = await lockPatient(tx, practiceId, patientId)
    if (!patient) {
      await tx
        .update(nextechClaimLines)
        .set({ state: 'waiting', patient_id: null, updated_at: now() })
        .where(eq(nextechClaimLines.id, line.id))
      return
    }
    const pricing = award
      ? {
          state: 'earn' as const,
          points: award.points,
          procedure_id: line.procedure_id,
          product_id: line.product_id,
        }
      : await price(tx, practiceId, line, patient.id, basis)
    const base = {
      patient_id: patient.id,
      procedure_id: pricing.procedure_id,
      product_id: pricing.product_id,
      updated_at: now(),
    }
    if (pricing.state === 'none') {
      await tx
        .update(nextechClaimLines)
        .set({ ...base, state: 'none', note: pricing.note, points: 0 })
        .where(eq(nextechClaimLines.id, line.id))
      return
    }
    if (pricing.state === 'review') {
      await tx
        .update(nextechClaimLines)
        .set({ ...base, state: 'review', note: pricing.message, points: pricing.points })
        .where(eq(nextechClaimLines.id, line.id))
      await openReview(tx, practiceId, 'ceiling', line, pricing.message)
      return
    }
    const entry = await ledger
      .locked(tx, { practiceId, patientId: patient.id, balance: patient.points })
      .credit({
        userId: award?.userId ?? null,
        kind: 'earn',
        points: pricing.points,
        sourceType: 'nextech',
        sourceId: line.id,
        reason: NEXTECH_SYNC_MESSAGES.earnReason(line.claim_id, line.text),
        idempotencyKey: `nextech:${line.claim_id}:${line.line_id}`,
      })
    await tx
      .update(nextechClaimLines)
      .set({
        ...base,
        state: 'earned',
        note: null,
        points: pricing.points,
        earn_entry_id: entry.id,
      })
      .where(eq(nextechClaimLines.id, line.id))
    await recordWithin(
      tx,
      {
        action: 'ledger.posted',
        userId: award?.userId ?? null,
        practiceId,
        details: {
          patient_id: patient.id,
          entry_id: entry.id,
          kind: 'earn',
          points: entry.points,
          source: 'nextech',
        },
      },
      now(),
    )
    if (counts) counts.points_awarded += pricing.points
  }

  /** Reverses what `line` earned, in `tx`; a reversal the ledger refuses waits for review. */
  async function reverse(
    tx: Transaction,
    practiceId: number,
    line: LineRow,
    counts: NextechCounts | null,
  ) {
    if (line.earn_entry_id === null || line.patient_id === null) return
    const [target] = await tx
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.id, line.earn_entry_id))
    const patient = target ? await lockPatient(tx, practiceId, target.patient_id) : null
    if (!target || !patient) return
    try {
      const entry = await ledger
        .locked(tx, { practiceId, patientId: target.patient_id, balance: patient.points })
        .reverse(target, {
          userId: null,
          reason: NEXTECH_SYNC_MESSAGES.voidReason(line.claim_id),
          idempotencyKey: `nextech-void:${line.claim_id}:${line.line_id}`,
        })
      await tx
        .update(nextechClaimLines)
        .set({ state: 'reversed', voided: true, reverse_entry_id: entry.id, updated_at: now() })
        .where(eq(nextechClaimLines.id, line.id))
      await recordWithin(
        tx,
        {
          action: 'ledger.posted',
          userId: null,
          practiceId,
          details: {
            patient_id: target.patient_id,
            entry_id: entry.id,
            kind: 'reverse',
            points: entry.points,
            source: 'nextech',
          },
        },
        now(),
      )
      if (counts) counts.points_reversed += line.points
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error
      if (error.message === LEDGER_MESSAGES.alreadyReversed) {
        await tx
          .update(nextechClaimLines)
          .set({ state: 'reversed', voided: true, updated_at: now() })
          .where(eq(nextechClaimLines.id, line.id))
        return
      }
      const message = `Bill ${line.claim_id} (${line.text}) was voided in Nextech, but its ${line.points.toLocaleString('en-US')} points were not taken back: ${error.message}`
      await tx
        .update(nextechClaimLines)
        .set({ state: 'review', voided: true, note: error.message, updated_at: now() })
        .where(eq(nextechClaimLines.id, line.id))
      await openReview(tx, practiceId, 'reversal', line, message)
    }
  }

  /** The Glow patient a Nextech patient is linked to, if it is. */
  async function linkedPatient(tx: Transaction, practiceId: number, nextechId: string | null) {
    if (!nextechId) return null
    return (await linkedPatients(tx, practiceId, [nextechId])).get(nextechId) ?? null
  }

  /**
   * A page of bills in one transaction, in a handful of statements whatever its size: the lines'
   * rows written (new ones waiting) and locked, their patients' links read, the patients locked
   * in id order, voids reversed (one by one: each checks what was spent), and the lines that
   * earn posted together through the ledger. A line whose item has a minimum number of days
   * between awards, or a merged patient's, goes the one-by-one way.
   */
  async function applyPage(
    tx: Transaction,
    practiceId: number,
    claims: NextechClaim[],
    counts: NextechCounts,
    basis: PricingBasis,
  ) {
    const at = now()
    const incoming = claims.flatMap((claim) =>
      claim.lines.map((line) => ({
        claim,
        line,
        voided: claim.status !== 'active' || line.voided,
      })),
    )
    if (incoming.length === 0) return
    const inserted = await tx
      .insert(nextechClaimLines)
      .values(
        incoming.map(({ claim, line, voided }) => ({
          practice_id: practiceId,
          claim_id: claim.id,
          line_id: line.lineId,
          nextech_patient_id: claim.patientId,
          code: line.code,
          text: line.text.slice(0, 500) || line.code || 'Service',
          quantity: Math.max(0, Math.round(line.quantity)),
          net_cents: Math.max(0, line.netCents),
          billed_on: claim.created ? claim.created.slice(0, 10) : day(at),
          state: voided ? 'none' : 'waiting',
          note: voided ? NEXTECH_SYNC_MESSAGES.cancelledUnseen : null,
          voided,
          updated_at: at,
        })),
      )
      .onConflictDoNothing()
      .returning()
    // New rows are this transaction's own (locked already); the others are read and locked.
    const fresh = new Set(inserted.map((row) => `${row.claim_id}/${row.line_id}`))
    const seen = [
      ...new Set(
        incoming
          .filter(({ claim, line }) => !fresh.has(`${claim.id}/${line.lineId}`))
          .map(({ claim }) => claim.id),
      ),
    ]
    const known =
      seen.length === 0
        ? []
        : await tx
            .select()
            .from(nextechClaimLines)
            .where(
              and(
                eq(nextechClaimLines.practice_id, practiceId),
                inArray(nextechClaimLines.claim_id, seen),
              ),
            )
            .orderBy(asc(nextechClaimLines.id))
            .for('update')
    const rows = [
      ...inserted,
      ...known.filter((row) => !fresh.has(`${row.claim_id}/${row.line_id}`)),
    ]
    const rowOf = new Map(rows.map((row) => [`${row.claim_id}/${row.line_id}`, row]))
    const nextechIds = [
      ...new Set(claims.map((claim) => claim.patientId).filter((id): id is string => !!id)),
    ]
    const linkOf = await linkedPatients(tx, practiceId, nextechIds)

    const toReverse: LineRow[] = []
    const toClose: LineRow[] = []
    const toEarn: { row: LineRow; patientId: number }[] = []
    for (const { claim, line, voided } of incoming) {
      const row = rowOf.get(`${claim.id}/${line.lineId}`)
      if (!row) continue
      if (voided) {
        if (row.state === 'earned') toReverse.push(row)
        else if (!row.voided) toClose.push(row)
        continue
      }
      if (row.state !== 'waiting') continue
      const patientId = claim.patientId ? linkOf.get(claim.patientId) : undefined
      if (patientId) toEarn.push({ row, patientId })
    }

    for (const row of toReverse) await reverse(tx, practiceId, row, counts)
    if (toClose.length > 0) {
      await tx
        .update(nextechClaimLines)
        .set({
          voided: true,
          state: 'none',
          note: NEXTECH_SYNC_MESSAGES.cancelledUnseen,
          updated_at: at,
        })
        .where(
          inArray(
            nextechClaimLines.id,
            toClose.map((row) => row.id),
          ),
        )
      for (const row of toClose) {
        if (row.state === 'review') await closeReviews(tx, practiceId, row, 'voided in Nextech')
      }
    }
    if (toEarn.length === 0) return

    // The patients' locks, in id order (as every transaction of the product takes them).
    const locked = await tx
      .select({ id: patients.id, points: patients.points, merged_into_id: patients.merged_into_id })
      .from(patients)
      .where(
        and(
          eq(patients.practice_id, practiceId),
          inArray(patients.id, [...new Set(toEarn.map((item) => item.patientId))]),
        ),
      )
      .orderBy(asc(patients.id))
      .for('update')
    const balances = new Map<number, number>()
    for (const patient of locked) {
      if (patient.merged_into_id === null) balances.set(patient.id, patient.points)
    }
    const slow: { row: LineRow; patientId: number }[] = []
    const none: {
      row: LineRow
      patientId: number
      note: string
      procedure_id: number | null
      product_id: number | null
    }[] = []
    const earning: {
      row: LineRow
      patientId: number
      points: number
      procedure_id: number | null
      product_id: number | null
    }[] = []
    for (const item of toEarn) {
      const pricing = balances.has(item.patientId) ? quickPrice(item.row, basis) : 'slow'
      if (pricing === 'slow' || pricing.state === 'review') slow.push(item)
      else if (pricing.state === 'none') none.push({ ...item, ...pricing })
      else earning.push({ ...item, ...pricing })
    }
    if (none.length > 0) {
      await tx.execute(
        sql`update ${nextechClaimLines} set state = 'none', points = 0, note = v.note, patient_id = v.patient_id, procedure_id = v.procedure_id, product_id = v.product_id, updated_at = ${at.toISOString()}::timestamptz from (values ${sql.join(
          none.map(
            (item) =>
              sql`(${item.row.id}::int, ${item.note}::text, ${item.patientId}::int, ${item.procedure_id}::int, ${item.product_id}::int)`,
          ),
          sql`, `,
        )}) as v(id, note, patient_id, procedure_id, product_id) where ${nextechClaimLines.id} = v.id`,
      )
    }
    if (earning.length > 0) {
      const entries = await ledger.creditMany(
        tx,
        practiceId,
        balances,
        earning.map((item) => ({
          patientId: item.patientId,
          userId: null,
          kind: 'earn' as const,
          points: item.points,
          sourceType: 'nextech' as const,
          sourceId: item.row.id,
          reason: NEXTECH_SYNC_MESSAGES.earnReason(item.row.claim_id, item.row.text),
          idempotencyKey: `nextech:${item.row.claim_id}:${item.row.line_id}`,
        })),
      )
      await tx.execute(
        sql`update ${nextechClaimLines} set state = 'earned', note = null, points = v.points, earn_entry_id = v.entry_id, patient_id = v.patient_id, procedure_id = v.procedure_id, product_id = v.product_id, updated_at = ${at.toISOString()}::timestamptz from (values ${sql.join(
          earning.map(
            (item, index) =>
              sql`(${item.row.id}::int, ${item.points}::int, ${entries[index]?.id ?? null}::int, ${item.patientId}::int, ${item.procedure_id}::int, ${item.product_id}::int)`,
          ),
          sql`, `,
        )}) as v(id, points, entry_id, patient_id, procedure_id, product_id) where ${nextechClaimLines.id} = v.id`,
      )
      // One event for the page's postings: each entry is in the ledger with its bill.
      await recordWithin(
        tx,
        {
          action: 'nextech.points_posted',
          userId: null,
          practiceId,
          details: {
            entries: entries.length,
            points: earning.reduce((sum, item) => sum + item.points, 0),
            patients: new Set(earning.map((item) => item.patientId)).size,
          },
        },
        at,
      )
      for (const item of earning) counts.points_awarded += item.points
    }
    // What needs the patient's history or a person: one by one, under the locks held.
    for (const item of slow)
      await earn(tx, practiceId, item.row, item.patientId, counts, undefined, basis)
    // The referrers of the patients whose first bill this was.
    await referrals.awardIn(
      tx,
      practiceId,
      { referred: [...new Set(toEarn.map((item) => item.row.nextech_patient_id ?? ''))] },
      counts,
      basis.rules,
    )
  }

  return {
    earn,

    /** The practice's rules and codes' mappings, as bills are priced with them. */
    basisOf: (practiceId: number) => basisOf(db, practiceId),

    /**
     * A page of Nextech claims: each bill's lines earn or are reversed; quotes earn nothing. The
     * rules and mappings are read once for the page.
     */
    async applyClaims(
      practiceId: number,
      claims: NextechClaim[],
      counts: NextechCounts,
      known?: PricingBasis,
    ) {
      const bills = claims.filter((claim) => claim.use === 'complete')
      if (bills.length === 0) return
      const basis = known ?? (await basisOf(db, practiceId))
      await db.transaction((tx) => applyPage(tx, practiceId, bills, counts, basis))
      counts.bills += bills.length
    },

    /** The lines that waited for any of these Nextech patients, now that they are linked. */
    async applyWaiting(practiceId: number, nextechIds: string[], counts: NextechCounts | null) {
      if (nextechIds.length === 0) return
      const waiting = await db
        .select({ id: nextechClaimLines.id, nextech_id: nextechClaimLines.nextech_patient_id })
        .from(nextechClaimLines)
        .where(
          and(
            eq(nextechClaimLines.practice_id, practiceId),
            inArray(nextechClaimLines.nextech_patient_id, nextechIds),
            eq(nextechClaimLines.state, 'waiting'),
          ),
        )
      for (const { id, nextech_id } of waiting) {
        await db.transaction(async (tx) => {
          const [row] = await tx
            .select()
            .from(nextechClaimLines)
            .where(eq(nextechClaimLines.id, id))
            .for('update')
          if (row?.state !== 'waiting' || row.voided) return
          const patientId = await linkedPatient(tx, practiceId, nextech_id)
          if (patientId === null) return
          await earn(tx, practiceId, row, patientId, counts)
          if (nextech_id)
            await referrals.awardIn(tx, practiceId, { referred: [nextech_id] }, counts)
        })
      }
    },

    /**
     * The backfill: bills dated from `since` on that earned nothing because they were made before
     * the connection's first day. `preview` answers what they would earn and changes nothing;
     * otherwise the award day moves back to `since` and they earn, page by page (each line once,
     * as always: a second backfill finds nothing left).
     */
    async backfill(practiceId: number, since: string, { preview }: { preview: boolean }) {
      const [connection] = await db
        .select({ award_from: nextechConnections.award_from })
        .from(nextechConnections)
        .where(eq(nextechConnections.practice_id, practiceId))
      const awardFrom = connection?.award_from ? String(connection.award_from) : null
      const before = and(
        eq(nextechClaimLines.practice_id, practiceId),
        eq(nextechClaimLines.state, 'none'),
        eq(nextechClaimLines.voided, false),
        sql`${nextechClaimLines.patient_id} is not null`,
        sql`${nextechClaimLines.billed_on} >= ${since}`,
        awardFrom ? sql`${nextechClaimLines.billed_on} < ${awardFrom}` : sql`false`,
      )
      const lines = await db
        .select()
        .from(nextechClaimLines)
        .where(before)
        .orderBy(asc(nextechClaimLines.id))
      const basis = await basisOf(db, practiceId)
      const earlier = { ...basis, awardFrom: since }
      let points = 0
      let earning = 0
      const patientIds = new Set<number>()
      for (const line of lines) {
        const pricing = quickPrice(line, earlier, { minDays: false })
        if (pricing === 'slow' || pricing.state !== 'earn') continue
        earning += 1
        points += pricing.points
        if (line.patient_id !== null) patientIds.add(line.patient_id)
      }
      const answer = {
        since,
        award_from: awardFrom,
        lines: earning,
        bills: new Set(lines.map((line) => line.claim_id)).size,
        patients: patientIds.size,
        points,
      }
      if (preview || lines.length === 0) return { ...answer, applied: false }
      await db
        .update(nextechConnections)
        .set({ award_from: since })
        .where(eq(nextechConnections.practice_id, practiceId))
      let posted = 0
      for (let start = 0; start < lines.length; start += 100) {
        const ids = lines.slice(start, start + 100).map((line) => line.id)
        await db.transaction(async (tx) => {
          const rows = await tx
            .select()
            .from(nextechClaimLines)
            .where(and(inArray(nextechClaimLines.id, ids), eq(nextechClaimLines.state, 'none')))
            .orderBy(asc(nextechClaimLines.id))
            .for('update')
          const counts = { ...NO_NEXTECH_COUNTS }
          for (const row of rows) {
            if (row.patient_id === null || row.voided) continue
            await earn(tx, practiceId, row, row.patient_id, counts, undefined, {
              ...basis,
              awardFrom: since,
            })
          }
          posted += counts.points_awarded
        })
      }
      return { ...answer, points: posted, applied: true }
    },
  }
}

/** The bills half of the sync. */
export type Bills = ReturnType<typeof createBills>
