/**
 * The points ledger. Every change of a patient's points goes through here:
 * one append-only entry, its allocations, and the cached balance `patients.points`, written in one
 * transaction that holds the patient's row lock. So two requests on one patient run one after the
 * other (no overspend), a retried idempotency key answers the entry already written (exactly
 * once), debits take the oldest unexpired points first, an entry is reversed at most once, and a
 * lot's expiry only ever takes points that were not spent.
 *
 * ```ts
 * const ledger = createLedger({ db, now })
 * await ledger.credit({ practiceId, patientId, userId, kind: 'earn', points: 120, sourceType: 'visit', sourceId: 7, idempotencyKey })
 * await ledger.redeem({ practiceId, patientId, userId, points: 100, sourceType: 'manual', idempotencyKey })
 * ```
 */
import { and, asc, desc, eq, gt, inArray, lte, sql } from 'drizzle-orm'
import {
  expiryDate,
  LEDGER_MESSAGES,
  type LedgerKind,
  type LedgerSource,
  MAX_ENTRY_POINTS,
} from '#domain/ledger.ts'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import { pointsText } from '#domain/points.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { ledgerAllocations, ledgerEntries, patients, practices, users } from '#server/db/schema.ts'
import { DomainError } from '#server/lib/domain-error.ts'

/** A refusal of the ledger, answered with its sentence as it is. */
export class LedgerError extends DomainError {
  constructor(kind: 'invalid' | 'not-found' | 'conflict', message: string) {
    super(kind, message)
  }
}

/** A ledger entry as stored. */
export type LedgerEntryRow = typeof ledgerEntries.$inferSelect

/** What a posting answers: the entry, the balance after it, and whether it was a replay. */
export type LedgerResult = {
  entry: LedgerEntryRow
  balance: number
  /** True when the idempotency key had already written this entry: nothing new was posted. */
  replayed: boolean
  /** Expiries posted on the way (lots that had lapsed before this change). */
  expired: LedgerEntryRow[]
}

/** What a posting that adds or takes a lot of points writes on its entry. */
type LotPosting = {
  kind: LedgerKind
  points: number
  sourceType: LedgerSource
  sourceId?: number | null | undefined
  reason?: string | null | undefined
}

/** Who does the change, for whom; every posting names them. */
type Actor = {
  practiceId: number
  patientId: number
  /** The staff member; null for the system (the expiry job). */
  userId: number | null
  /** Unique per practice; the same key again answers the entry it wrote. */
  idempotencyKey?: string | undefined
  /**
   * When given, the posting is written to the audit trail (`ledger.posted`, from this address)
   * in its own transaction; a replayed key records nothing.
   */
  audit?: { ip: string | null } | undefined
}

export type CreditInput = Actor & {
  kind: 'earn' | 'bonus'
  points: number
  sourceType: LedgerSource
  sourceId?: number | null | undefined
  reason?: string | null | undefined
}

export type AdjustInput = Actor & { points: number; reason: string }

export type RedeemInput = Actor & {
  points: number
  sourceType: LedgerSource
  sourceId?: number | null | undefined
  reason?: string | null | undefined
}

export type ReverseInput = Omit<Actor, 'patientId'> & { entryId: number; reason: string }

/** The ledger's operations over one database. */
export type Ledger = ReturnType<typeof createLedger>

const CREDIT_KINDS: LedgerKind[] = ['earn', 'bonus', 'adjust']

/** Whether an entry is a lot (a credit that others can take from). */
export function isLot(entry: Pick<LedgerEntryRow, 'kind' | 'points'>): boolean {
  return CREDIT_KINDS.includes(entry.kind as LedgerKind) && entry.points > 0
}

function assertPoints(points: number): void {
  if (!Number.isInteger(points) || points === 0)
    throw new LedgerError('invalid', LEDGER_MESSAGES.zeroPoints)
  if (Math.abs(points) > MAX_ENTRY_POINTS) {
    throw new LedgerError('invalid', `A change can move at most ${pointsText(MAX_ENTRY_POINTS)}.`)
  }
}

function assertReason(reason: string | null | undefined): string {
  const trimmed = reason?.trim() ?? ''
  if (!trimmed) throw new LedgerError('invalid', LEDGER_MESSAGES.reasonRequired)
  return trimmed
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true
  }
  return false
}

/** The staff member of an entry, as the API names them. */
type Author = { id: number; first_name: string; last_name: string } | null

/** An entry as the API answers it (domain `LedgerEntrySchema`). */
export function toAnswer(entry: LedgerEntryRow, author: Author, reversedBy?: number | null) {
  return {
    id: entry.id,
    patient_id: entry.patient_id,
    kind: entry.kind as LedgerKind,
    points: entry.points,
    source_type: entry.source_type,
    source_id: entry.source_id,
    reason: entry.reason,
    expires_at: entry.expires_at?.toISOString() ?? null,
    reverses_id: entry.reverses_id,
    reversed_by: reversedBy ?? null,
    balance_after: entry.balance_after,
    created_by: author?.id ? author : null,
    created_at: entry.created_at.toISOString(),
  }
}

const day = (date: Date) => date.toISOString().slice(0, 10)

/** Builds the ledger over `db`, with `now` as its clock (expiry dates, lapsed lots). */
export function createLedger({ db, now }: { db: Database; now: () => Date }) {
  /** Locks the patient's row for the rest of the transaction; 404 for another practice's id too. */
  async function lockPatient(tx: Transaction, practiceId: number, patientId: number) {
    const [row] = await tx
      .select({ id: patients.id, points: patients.points, merged_into_id: patients.merged_into_id })
      .from(patients)
      .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
      .for('update')
    if (!row) throw new LedgerError('not-found', LEDGER_MESSAGES.patientNotFound)
    // A merged patient's points are on the patient it was merged into: a change that
    // waited for the merge's lock must not post to the archived record.
    if (row.merged_into_id !== null) throw new LedgerError('conflict', MERGE_MESSAGES.mergedPatient)
    return row
  }

  /** The entry a key already wrote, or undefined. */
  async function byKey(tx: Database | Transaction, practiceId: number, key: string | undefined) {
    if (!key) return undefined
    const [row] = await tx
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.practice_id, practiceId), eq(ledgerEntries.idempotency_key, key)))
    return row
  }

  /** The patient's lots with points left, oldest expiry first (never-expiring last). */
  async function openLots(tx: Transaction, patientId: number) {
    const allocated = sql<number>`coalesce(sum(${ledgerAllocations.points}), 0)::int`
    const rows = await tx
      .select({
        id: ledgerEntries.id,
        points: ledgerEntries.points,
        expires_at: ledgerEntries.expires_at,
        remaining: sql<number>`(${ledgerEntries.points} - ${allocated})::int`,
      })
      .from(ledgerEntries)
      .leftJoin(ledgerAllocations, eq(ledgerAllocations.lot_entry_id, ledgerEntries.id))
      .where(
        and(
          eq(ledgerEntries.patient_id, patientId),
          inArray(ledgerEntries.kind, CREDIT_KINDS),
          gt(ledgerEntries.points, 0),
        ),
      )
      .groupBy(ledgerEntries.id)
      .having(sql`${ledgerEntries.points} - ${allocated} > 0`)
      .orderBy(sql`${ledgerEntries.expires_at} asc nulls last`, asc(ledgerEntries.id))
    return rows.map((row) => ({ ...row, remaining: Number(row.remaining) }))
  }

  async function insertEntry(
    tx: Transaction,
    values: typeof ledgerEntries.$inferInsert,
  ): Promise<LedgerEntryRow> {
    const [entry] = await tx.insert(ledgerEntries).values(values).returning()
    if (!entry) throw new Error('The ledger entry was not written')
    await tx
      .update(patients)
      .set({ points: values.balance_after })
      .where(eq(patients.id, values.patient_id))
    return entry
  }

  /** Posts `expire` entries for the patient's lapsed lots with points left; returns them. */
  async function expireLapsed(
    tx: Transaction,
    practiceId: number,
    patientId: number,
    balance: number,
    keySuffix = '',
  ): Promise<{ balance: number; expired: LedgerEntryRow[] }> {
    const at = now()
    const lapsed = (await openLots(tx, patientId)).filter(
      (lot) => lot.expires_at && lot.expires_at.getTime() <= at.getTime(),
    )
    const expired: LedgerEntryRow[] = []
    for (const lot of lapsed) {
      balance -= lot.remaining
      const entry = await insertEntry(tx, {
        practice_id: practiceId,
        patient_id: patientId,
        kind: 'expire',
        points: -lot.remaining,
        source_type: 'expiry',
        source_id: lot.id,
        idempotency_key: `expire:${lot.id}:${day(at)}${keySuffix}`,
        balance_after: balance,
        created_by: null,
        created_at: at,
      })
      await tx.insert(ledgerAllocations).values({
        practice_id: practiceId,
        patient_id: patientId,
        debit_entry_id: entry.id,
        lot_entry_id: lot.id,
        points: lot.remaining,
        created_at: at,
      })
      expired.push(entry)
    }
    return { balance, expired }
  }

  /**
   * Runs one change on one patient: locks the row, answers a replayed key, posts lapsed expiries,
   * then `work`. A unique-key race lost to another request reads as that request's replay.
   */
  async function onPatient(
    actor: Actor,
    matches: (existing: LedgerEntryRow) => boolean,
    work: (
      tx: Transaction,
      balance: number,
    ) => Promise<{ entry: LedgerEntryRow; balance: number; extra?: LedgerEntryRow[] }>,
  ): Promise<LedgerResult> {
    try {
      return await db.transaction(async (tx) => {
        const patient = await lockPatient(tx, actor.practiceId, actor.patientId)
        const existing = await byKey(tx, actor.practiceId, actor.idempotencyKey)
        if (existing) {
          if (existing.patient_id !== actor.patientId || !matches(existing)) {
            throw new LedgerError('conflict', LEDGER_MESSAGES.keyReused)
          }
          return { entry: existing, balance: patient.points, replayed: true, expired: [] }
        }
        const lapsed = await expireLapsed(tx, actor.practiceId, actor.patientId, patient.points)
        const done = await work(tx, lapsed.balance)
        if (actor.audit) {
          await recordWithin(
            tx,
            {
              action: 'ledger.posted',
              userId: actor.userId,
              practiceId: actor.practiceId,
              ip: actor.audit.ip,
              details: {
                patient_id: done.entry.patient_id,
                entry_id: done.entry.id,
                kind: done.entry.kind,
                points: done.entry.points,
              },
            },
            now(),
          )
        }
        return {
          entry: done.entry,
          balance: done.balance,
          replayed: false,
          expired: [...lapsed.expired, ...(done.extra ?? [])],
        }
      })
    } catch (error) {
      if (!(error instanceof LedgerError) && isUniqueViolation(error) && actor.idempotencyKey) {
        // Another request with this key committed first (a different patient: the locks differ).
        const existing = await byKey(db, actor.practiceId, actor.idempotencyKey)
        if (existing?.patient_id === actor.patientId && matches(existing)) {
          const [row] = await db
            .select({ points: patients.points })
            .from(patients)
            .where(eq(patients.id, actor.patientId))
          return { entry: existing, balance: row?.points ?? 0, replayed: true, expired: [] }
        }
        throw new LedgerError('conflict', LEDGER_MESSAGES.keyReused)
      }
      throw error
    }
  }

  async function expiryFor(tx: Transaction, practiceId: number): Promise<Date | null> {
    const [practice] = await tx
      .select({ expiry_months: practices.expiry_months })
      .from(practices)
      .where(eq(practices.id, practiceId))
    return expiryDate(now(), practice?.expiry_months ?? 0)
  }

  /** Adds a lot of `points` (> 0): a credit that expires by the programme's rule. */
  async function addLot(tx: Transaction, actor: Actor, balance: number, values: LotPosting) {
    const after = balance + values.points
    const entry = await insertEntry(tx, {
      practice_id: actor.practiceId,
      patient_id: actor.patientId,
      kind: values.kind,
      points: values.points,
      source_type: values.sourceType,
      source_id: values.sourceId ?? null,
      idempotency_key: actor.idempotencyKey ?? null,
      reason: values.reason ?? null,
      expires_at: await expiryFor(tx, actor.practiceId),
      balance_after: after,
      created_by: actor.userId,
      created_at: now(),
    })
    return { entry, balance: after }
  }

  /** Takes `points` (> 0) from the open lots, oldest first; refuses more than the balance. */
  async function takeFromLots(tx: Transaction, actor: Actor, balance: number, values: LotPosting) {
    if (values.points > balance)
      throw new LedgerError('conflict', LEDGER_MESSAGES.notEnoughPoints(balance))
    const after = balance - values.points
    const entry = await insertEntry(tx, {
      practice_id: actor.practiceId,
      patient_id: actor.patientId,
      kind: values.kind,
      points: -values.points,
      source_type: values.sourceType,
      source_id: values.sourceId ?? null,
      idempotency_key: actor.idempotencyKey ?? null,
      reason: values.reason ?? null,
      balance_after: after,
      created_by: actor.userId,
      created_at: now(),
    })
    let left = values.points
    const allocations: (typeof ledgerAllocations.$inferInsert)[] = []
    for (const lot of await openLots(tx, actor.patientId)) {
      if (left === 0) break
      const take = Math.min(left, lot.remaining)
      allocations.push({
        practice_id: actor.practiceId,
        patient_id: actor.patientId,
        debit_entry_id: entry.id,
        lot_entry_id: lot.id,
        points: take,
        created_at: now(),
      })
      left -= take
    }
    // The cache and the lots are kept together; a difference is a bug, never a partial spend.
    if (left !== 0) throw new Error('The ledger lots do not cover the cached balance')
    await tx.insert(ledgerAllocations).values(allocations)
    return { entry, balance: after }
  }

  /**
   * Posts the reversal of `target` on its patient, whose row `tx` holds locked with `balance`:
   * an award only while none of its points were spent; a spend gives its points back to the lots
   * it took them from, and any of those that lapsed meanwhile expire again at once.
   */
  async function reverseEntry(
    tx: Transaction,
    target: LedgerEntryRow,
    input: { userId: number | null; reason: string; idempotencyKey?: string | undefined },
    balance: number,
  ): Promise<{ entry: LedgerEntryRow; balance: number; extra: LedgerEntryRow[] }> {
    if (target.kind === 'expire' || target.kind === 'reverse') {
      throw new LedgerError('conflict', LEDGER_MESSAGES.notReversible)
    }
    const [already] = await tx
      .select({ id: ledgerEntries.id })
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.practice_id, target.practice_id),
          eq(ledgerEntries.reverses_id, target.id),
        ),
      )
    if (already) throw new LedgerError('conflict', LEDGER_MESSAGES.alreadyReversed)
    const base = {
      practice_id: target.practice_id,
      patient_id: target.patient_id,
      kind: 'reverse',
      source_type: 'reversal',
      source_id: target.id,
      reverses_id: target.id,
      idempotency_key: input.idempotencyKey ?? null,
      reason: input.reason,
      created_by: input.userId,
      created_at: now(),
    } as const

    if (isLot(target)) {
      const uses = await tx
        .select({
          kind: ledgerEntries.kind,
          points: sql<number>`sum(${ledgerAllocations.points})::int`,
        })
        .from(ledgerAllocations)
        .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerAllocations.debit_entry_id))
        .where(eq(ledgerAllocations.lot_entry_id, target.id))
        .groupBy(ledgerEntries.kind)
      const used = uses.reduce((sum, u) => sum + Number(u.points), 0)
      if (used > 0) {
        const expiredOnly = uses.every((u) => u.kind === 'expire' || Number(u.points) === 0)
        throw new LedgerError(
          'conflict',
          expiredOnly ? LEDGER_MESSAGES.alreadyExpired : LEDGER_MESSAGES.alreadySpent,
        )
      }
      const after = balance - target.points
      const entry = await insertEntry(tx, {
        ...base,
        points: -target.points,
        balance_after: after,
      })
      await tx.insert(ledgerAllocations).values({
        practice_id: target.practice_id,
        patient_id: target.patient_id,
        debit_entry_id: entry.id,
        lot_entry_id: target.id,
        points: target.points,
        created_at: now(),
      })
      return { entry, balance: after, extra: [] }
    }

    // A spend: give each lot back what this entry took from it.
    const taken = await tx
      .select({
        lot: ledgerAllocations.lot_entry_id,
        points: sql<number>`sum(${ledgerAllocations.points})::int`,
      })
      .from(ledgerAllocations)
      .where(eq(ledgerAllocations.debit_entry_id, target.id))
      .groupBy(ledgerAllocations.lot_entry_id)
    const after = balance - target.points
    const entry = await insertEntry(tx, {
      ...base,
      points: -target.points,
      balance_after: after,
    })
    const back = taken.filter((t) => Number(t.points) !== 0)
    if (back.length > 0) {
      await tx.insert(ledgerAllocations).values(
        back.map((t) => ({
          practice_id: target.practice_id,
          patient_id: target.patient_id,
          debit_entry_id: entry.id,
          lot_entry_id: t.lot,
          points: -Number(t.points),
          created_at: now(),
        })),
      )
    }
    const relapsed = await expireLapsed(
      tx,
      target.practice_id,
      target.patient_id,
      after,
      `:after-${entry.id}`,
    )
    return { entry, balance: relapsed.balance, extra: relapsed.expired }
  }

  return {
    /**
     * The opening balances of patients the caller's transaction has just created (the
     * patient import): one `bonus` lot each, source `import`, with the programme's expiry, and
     * the cached balance set to it, in one insert and one update for the whole chunk. The
     * patients are new, so they have no lots, no expiries and a balance of 0: nothing has to be
     * read or locked first (the caller holds the practice's lock). Each entry's idempotency key
     * is unique per practice, the second guard after the caller's own memory of what it created.
     */
    async openingBalances(
      tx: Transaction,
      input: {
        practiceId: number
        userId: number | null
        reason: string
        entries: readonly { patientId: number; points: number; idempotencyKey: string }[]
      },
    ): Promise<LedgerEntryRow[]> {
      if (input.entries.length === 0) return []
      for (const entry of input.entries) {
        assertPoints(entry.points)
        if (entry.points < 0) throw new LedgerError('invalid', LEDGER_MESSAGES.zeroPoints)
      }
      const reason = assertReason(input.reason)
      const at = now()
      const expiresAt = await expiryFor(tx, input.practiceId)
      const entries = await tx
        .insert(ledgerEntries)
        .values(
          input.entries.map((entry) => ({
            practice_id: input.practiceId,
            patient_id: entry.patientId,
            kind: 'bonus',
            points: entry.points,
            source_type: 'import',
            idempotency_key: entry.idempotencyKey,
            reason,
            expires_at: expiresAt,
            balance_after: entry.points,
            created_by: input.userId,
            created_at: at,
          })),
        )
        .returning()
      const balances = sql.join(
        input.entries.map((e) => sql`when ${e.patientId}::int then ${e.points}::int`),
        sql` `,
      )
      await tx
        .update(patients)
        .set({ points: sql`case ${patients.id} ${balances} end` })
        .where(
          and(
            eq(patients.practice_id, input.practiceId),
            inArray(
              patients.id,
              input.entries.map((e) => e.patientId),
            ),
          ),
        )
      return entries
    },

    /** An award (`earn` for a visit's items, `bonus` for joining or a promotion). */
    credit(input: CreditInput): Promise<LedgerResult> {
      assertPoints(input.points)
      if (input.points < 0) throw new LedgerError('invalid', LEDGER_MESSAGES.zeroPoints)
      return onPatient(
        input,
        (e) => e.kind === input.kind && e.points === input.points,
        (tx, balance) =>
          addLot(tx, input, balance, {
            kind: input.kind,
            points: input.points,
            sourceType: input.sourceType,
            sourceId: input.sourceId,
            reason: input.reason,
          }),
      )
    },

    /** A manual change by a manager or admin, + or -, with a reason. */
    adjust(input: AdjustInput): Promise<LedgerResult> {
      assertPoints(input.points)
      const reason = assertReason(input.reason)
      const values = { kind: 'adjust' as const, sourceType: 'manual' as const, reason }
      return onPatient(
        input,
        (e) => e.kind === 'adjust' && e.points === input.points,
        (tx, balance) =>
          input.points > 0
            ? addLot(tx, input, balance, { ...values, points: input.points })
            : takeFromLots(tx, input, balance, { ...values, points: -input.points }),
      )
    },

    /** Spends `points` (> 0) for a reward or a promotion; never below 0. */
    redeem(input: RedeemInput): Promise<LedgerResult> {
      assertPoints(input.points)
      if (input.points < 0) throw new LedgerError('invalid', LEDGER_MESSAGES.zeroPoints)
      return onPatient(
        input,
        (e) => e.kind === 'redeem' && e.points === -input.points,
        (tx, balance) =>
          takeFromLots(tx, input, balance, {
            kind: 'redeem',
            points: input.points,
            sourceType: input.sourceType,
            sourceId: input.sourceId,
            reason: input.reason,
          }),
      )
    },

    /**
     * Awards many lots at once (a page of bills synced from Nextech) for a caller whose transaction
     * `tx` holds the row locks of every patient in `balances` (their balances as read under the
     * lock). Lapsed lots expire first, as before every change; then one statement writes the
     * entries with their running balances and one the patients' balances. Keys are the caller's
     * new ones (the unique index refuses a key used twice, failing the transaction). Answers the
     * entries in the order of `postings`.
     */
    async creditMany(
      tx: Transaction,
      practiceId: number,
      balances: Map<number, number>,
      postings: {
        patientId: number
        userId: number | null
        kind: 'earn' | 'bonus'
        points: number
        sourceType: LedgerSource
        sourceId?: number | null
        reason?: string | null
        idempotencyKey: string
      }[],
    ): Promise<LedgerEntryRow[]> {
      if (postings.length === 0) return []
      for (const posting of postings) assertPoints(posting.points)
      const at = now()
      const ids = [...balances.keys()]
      const allocated = sql`coalesce((select sum(a.points) from ${ledgerAllocations} a where a.lot_entry_id = ${ledgerEntries.id}), 0)`
      const lapsed = await tx
        .selectDistinct({ patient_id: ledgerEntries.patient_id })
        .from(ledgerEntries)
        .where(
          and(
            inArray(ledgerEntries.patient_id, ids),
            inArray(ledgerEntries.kind, CREDIT_KINDS),
            gt(ledgerEntries.points, 0),
            lte(ledgerEntries.expires_at, at),
            sql`${ledgerEntries.points} - ${allocated} > 0`,
          ),
        )
      for (const { patient_id } of lapsed) {
        const done = await expireLapsed(tx, practiceId, patient_id, balances.get(patient_id) ?? 0)
        balances.set(patient_id, done.balance)
      }
      const expiresAt = await expiryFor(tx, practiceId)
      const rows = postings.map((posting) => {
        const after = (balances.get(posting.patientId) ?? 0) + posting.points
        balances.set(posting.patientId, after)
        return {
          practice_id: practiceId,
          patient_id: posting.patientId,
          kind: posting.kind,
          points: posting.points,
          source_type: posting.sourceType,
          source_id: posting.sourceId ?? null,
          idempotency_key: posting.idempotencyKey,
          reason: posting.reason ?? null,
          expires_at: expiresAt,
          balance_after: after,
          created_by: posting.userId,
          created_at: at,
        }
      })
      const entries = await tx.insert(ledgerEntries).values(rows).returning()
      const changed = [...new Set(postings.map((posting) => posting.patientId))]
      await tx.execute(
        sql`update ${patients} set points = v.points from (values ${sql.join(
          changed.map((id) => sql`(${id}::int, ${balances.get(id) ?? 0}::int)`),
          sql`, `,
        )}) as v(id, points) where ${patients.id} = v.id`,
      )
      const byKey = new Map(entries.map((entry) => [entry.idempotency_key, entry]))
      return postings.map((posting) => {
        const entry = byKey.get(posting.idempotencyKey)
        if (!entry) throw new Error('A ledger entry was not written')
        return entry
      })
    },

    /**
     * Postings on one patient for a caller whose transaction `tx` already holds the patient's row
     * lock (taken first, in server/db/locks.ts's order) and read its balance: no second lock, no
     * savepoint, and no look-up of the keys, which the caller has checked or made new itself (the
     * unique index still refuses a key used twice, failing the caller's transaction). Lapsed lots
     * expire before the first posting, as they do before every other change.
     */
    locked(tx: Transaction, patient: { practiceId: number; patientId: number; balance: number }) {
      let balance = patient.balance
      let lapsedChecked = false
      const actor = (input: { userId: number | null; idempotencyKey?: string | undefined }) => ({
        practiceId: patient.practiceId,
        patientId: patient.patientId,
        userId: input.userId,
        idempotencyKey: input.idempotencyKey,
      })
      async function post(
        work: (balance: number) => Promise<{ entry: LedgerEntryRow; balance: number }>,
      ) {
        if (!lapsedChecked) {
          lapsedChecked = true
          const lapsed = await expireLapsed(tx, patient.practiceId, patient.patientId, balance)
          balance = lapsed.balance
        }
        const done = await work(balance)
        balance = done.balance
        return done.entry
      }
      return {
        /** An award, as {@link credit} posts it. */
        credit(input: Omit<CreditInput, 'practiceId' | 'patientId'>): Promise<LedgerEntryRow> {
          assertPoints(input.points)
          if (input.points < 0) throw new LedgerError('invalid', LEDGER_MESSAGES.zeroPoints)
          return post((before) =>
            addLot(tx, actor(input), before, {
              kind: input.kind,
              points: input.points,
              sourceType: input.sourceType,
              sourceId: input.sourceId,
              reason: input.reason,
            }),
          )
        },
        /** A spend, as {@link redeem} posts it. */
        redeem(input: Omit<RedeemInput, 'practiceId' | 'patientId'>): Promise<LedgerEntryRow> {
          assertPoints(input.points)
          if (input.points < 0) throw new LedgerError('invalid', LEDGER_MESSAGES.zeroPoints)
          return post((before) =>
            takeFromLots(tx, actor(input), before, {
              kind: 'redeem',
              points: input.points,
              sourceType: input.sourceType,
              sourceId: input.sourceId,
              reason: input.reason,
            }),
          )
        },
        /**
         * The reversal of one of this patient's entries, as {@link reverse} posts it: the caller
         * has read `target` (in its transaction) and checked it has no reversal by this key.
         */
        reverse(
          target: LedgerEntryRow,
          input: { userId: number | null; reason: string; idempotencyKey?: string | undefined },
        ): Promise<LedgerEntryRow> {
          const reason = assertReason(input.reason)
          if (
            target.practice_id !== patient.practiceId ||
            target.patient_id !== patient.patientId
          ) {
            throw new LedgerError('not-found', LEDGER_MESSAGES.entryNotFound)
          }
          return post((before) => reverseEntry(tx, target, { ...input, reason }, before))
        },
        /** The patient's balance after the postings so far (the cached `patients.points`). */
        balance: () => balance,
      }
    },

    /**
     * Cancels one earlier entry, once. An award is reversed only while none of its points were
     * spent; a spend (redemption, negative adjustment) gives its points back to the lots it took
     * them from, and any of those that lapsed meanwhile expire again at once.
     */
    async reverse(input: ReverseInput): Promise<LedgerResult> {
      const reason = assertReason(input.reason)
      const [target] = await db
        .select()
        .from(ledgerEntries)
        .where(
          and(eq(ledgerEntries.id, input.entryId), eq(ledgerEntries.practice_id, input.practiceId)),
        )
      if (!target) throw new LedgerError('not-found', LEDGER_MESSAGES.entryNotFound)
      const actor: Actor = { ...input, patientId: target.patient_id }
      return onPatient(
        actor,
        (e) => e.kind === 'reverse' && e.reverses_id === target.id,
        (tx, balance) => reverseEntry(tx, target, { ...input, reason }, balance),
      )
    },

    /**
     * The daily expiry job: every lapsed lot with points left gets its `expire` entry. Running it
     * again posts nothing new (a lot with nothing left is not open). Answers the entries posted.
     */
    async expireDue(practiceId?: number): Promise<LedgerEntryRow[]> {
      const at = now()
      const due = await db
        .selectDistinct({
          practice_id: ledgerEntries.practice_id,
          patient_id: ledgerEntries.patient_id,
        })
        .from(ledgerEntries)
        .where(
          and(
            practiceId === undefined ? undefined : eq(ledgerEntries.practice_id, practiceId),
            inArray(ledgerEntries.kind, CREDIT_KINDS),
            gt(ledgerEntries.points, 0),
            // Lots already used up are filtered by the open-lot query under the lock.
            lte(ledgerEntries.expires_at, at),
          ),
        )
      const posted: LedgerEntryRow[] = []
      for (const { practice_id, patient_id } of due) {
        const result = await db.transaction(async (tx) => {
          const patient = await lockPatient(tx, practice_id, patient_id)
          return expireLapsed(tx, practice_id, patient_id, patient.points)
        })
        posted.push(...result.expired)
      }
      return posted
    },

    /** The patient's open lots (points left and when they lapse), oldest first. */
    lots(patientId: number) {
      return db.transaction((tx) => openLots(tx, patientId))
    },

    /**
     * A page of the patient's entries, newest first: each with the staff member who made it and
     * the entry that reversed it, if any.
     */
    async history(
      practiceId: number,
      patientId: number,
      { page, pageSize }: { page: number; pageSize: number },
    ) {
      const where = and(
        eq(ledgerEntries.practice_id, practiceId),
        eq(ledgerEntries.patient_id, patientId),
      )
      const [rows, [count]] = await Promise.all([
        db
          .select({
            entry: ledgerEntries,
            author: { id: users.id, first_name: users.first_name, last_name: users.last_name },
            // The patient's balance after each entry, summed over the patient's entries as they
            // are: the stored `balance_after` of an entry that came with a merged patient is that
            // patient's balance, not the kept one's. Without a merge both are equal.
            running: sql<number>`(sum(${ledgerEntries.points}) over (order by ${ledgerEntries.id}))::int`,
          })
          .from(ledgerEntries)
          .leftJoin(users, eq(users.id, ledgerEntries.created_by))
          .where(where)
          .orderBy(desc(ledgerEntries.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ total: sql<number>`count(*)::int` }).from(ledgerEntries).where(where),
      ])
      const ids = rows.map((r) => r.entry.id)
      const reversals =
        ids.length === 0
          ? []
          : await db
              .select({ id: ledgerEntries.id, reverses_id: ledgerEntries.reverses_id })
              .from(ledgerEntries)
              .where(
                and(
                  eq(ledgerEntries.practice_id, practiceId),
                  inArray(ledgerEntries.reverses_id, ids),
                ),
              )
      const reversedBy = new Map(reversals.map((r) => [r.reverses_id, r.id]))
      return {
        data: rows.map(({ entry, author, running }) =>
          toAnswer({ ...entry, balance_after: Number(running) }, author, reversedBy.get(entry.id)),
        ),
        total: Number(count?.total ?? 0),
        page,
        pageSize,
      }
    },
  }
}
