/**
 * The practice of the "portal at scale" bench (scripts/bench/scale.ts): patients and their
 * points ledger, written in bulk SQL yet exactly as the ledger service would have written them.
 *
 * The first patient's ledger is written by the real service (server/modules/ledger/service.ts) on a
 * clock that walks through 700 days: visits, a promotion bonus, redemptions, manual adjustments
 * both ways, a reversal, and the expiries the service posts by itself when lots lapse. That is
 * {@link ENTRIES_PER_PATIENT} entries and their allocations. Every other patient gets a copy of
 * that template with one `INSERT … SELECT` per batch: new entry ids, the references between entries
 * (an expiry's lot, a reversal's target, each allocation's debit and lot) moved along, the
 * idempotency keys made unique as the service makes them, and every amount times the patient's
 * factor (1 to 4, so that balances differ): a first-in-first-out allocation stays one when all of
 * its amounts are multiplied. `patients.points` is the final balance times the same factor.
 * {@link verifyLedger} checks the result.
 *
 * ```ts
 * const practice = await createScalePractice(db)
 * await growPractice(db, practice, 10_000)
 * ```
 */
import { type SQL, sql } from 'drizzle-orm'
import { DAY_MS } from '#domain/time.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { patients, practices, users } from '#server/db/schema.ts'
import { createLedger, type Ledger, type LedgerResult } from '#server/modules/ledger/index.ts'
import { mintToken } from '#server/testing/test-app.ts'

/** Entries of each patient's ledger (the template below writes exactly that many). */
export const ENTRIES_PER_PATIENT = 20

// biome-ignore format: a list of names
const FIRST_NAMES = [
  'Olivia', 'Liam', 'Emma', 'Noah', 'Ava', 'Elijah', 'Sophia', 'James', 'Isabella', 'Lucas',
  'Mia', 'Mateo', 'Amelia', 'Benjamin', 'Harper', 'Henry', 'Evelyn', 'Theodore', 'Luna', 'Jack',
  'Camila', 'Levi', 'Gianna', 'Alexander', 'Abigail', 'Jackson', 'Ella', 'Daniel', 'Scarlett',
  'Samuel', 'Emily', 'Sebastian', 'Aria', 'Owen', 'Nora', 'Asher', 'Chloe', 'Wyatt', 'Layla',
  'Julian',
]

// biome-ignore format: a list of names
const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez',
  'Martinez', 'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor',
  'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark',
  'Ramirez', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Torres',
  'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell',
  'Mitchell', 'Carter', 'Roberts',
]

/** The `n`th patient's first name (n from 1), as the bulk insert picks it. */
export function firstNameOf(n: number): string {
  return FIRST_NAMES[(n * 13) % FIRST_NAMES.length] as string
}

/** The `n`th patient's last name (n from 1), as the bulk insert picks it. */
export function lastNameOf(n: number): string {
  return LAST_NAMES[(n * 37) % LAST_NAMES.length] as string
}

/** The `n`th patient's phone digits (n from 1), as the bulk insert writes them. */
export function phoneOf(n: number): string {
  return `555${String(n).padStart(7, '0')}`
}

/** One change of the template patient's ledger, `daysAgo` days before now. */
type TemplateStep =
  | { daysAgo: number; op: 'earn' | 'bonus' | 'adjust' | 'redeem'; points: number }
  | { daysAgo: number; op: 'reverse'; step: number }

/**
 * 17 changes over 700 days with the default programme (points lapse after 12 months). The service
 * adds three expiries on the way (the lots of day 500, 450 and 380 still had points when they
 * lapsed): 20 entries. Every lot that is left lapses more than a month from now, so no request of
 * the bench posts an expiry first.
 */
const TEMPLATE: TemplateStep[] = [
  { daysAgo: 700, op: 'earn', points: 120 },
  { daysAgo: 640, op: 'earn', points: 80 },
  { daysAgo: 600, op: 'redeem', points: 100 },
  { daysAgo: 560, op: 'bonus', points: 50 },
  { daysAgo: 500, op: 'earn', points: 200 },
  { daysAgo: 450, op: 'adjust', points: 30 },
  { daysAgo: 420, op: 'redeem', points: 150 },
  { daysAgo: 380, op: 'earn', points: 90 },
  { daysAgo: 330, op: 'earn', points: 60 },
  { daysAgo: 300, op: 'redeem', points: 120 },
  { daysAgo: 250, op: 'adjust', points: -20 },
  { daysAgo: 200, op: 'earn', points: 150 },
  { daysAgo: 130, op: 'earn', points: 70 },
  { daysAgo: 90, op: 'reverse', step: 11 },
  { daysAgo: 60, op: 'redeem', points: 50 },
  { daysAgo: 30, op: 'earn', points: 110 },
  { daysAgo: 10, op: 'redeem', points: 40 },
]

/** The seeded practice, its Admin and the template patient's ledger. */
export type ScalePractice = {
  practiceId: number
  admin: { id: number; practice_id: number }
  adminToken: string
  /** The patient whose ledger the service wrote; the others are copies of it. */
  templatePatientId: number
  /** The template's entries are the ids from `templateFirstEntryId` to `templateLastEntryId`. */
  templateFirstEntryId: number
  templateLastEntryId: number
  /** The template patient's final balance (a copy has it times its factor). */
  templateBalance: number
  /** Patients of the practice so far. */
  patients: number
}

/** The database or a transaction on it. */
type Db = Database | Transaction

/** The rows of a raw query, whichever driver answered it. */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}

/** Posts one template step through the service (`earlier`: the entries of the steps before). */
function post(
  ledger: Ledger,
  actor: { practiceId: number; patientId: number; userId: number },
  step: TemplateStep,
  earlier: LedgerResult[],
  idempotencyKey: string,
): Promise<LedgerResult> {
  const reason = 'Bench history'
  if (step.op === 'reverse') {
    const entryId = earlier[step.step]?.entry.id
    if (entryId === undefined) throw new Error(`A template step reverses a missing step`)
    return ledger.reverse({ ...actor, entryId, reason, idempotencyKey })
  }
  const { points } = step
  switch (step.op) {
    case 'earn':
      return ledger.credit({ ...actor, kind: 'earn', points, sourceType: 'visit', idempotencyKey })
    case 'bonus':
      return ledger.credit({
        ...actor,
        kind: 'bonus',
        points,
        sourceType: 'promotion',
        idempotencyKey,
      })
    case 'adjust':
      return ledger.adjust({ ...actor, points, reason, idempotencyKey })
    case 'redeem':
      return ledger.redeem({ ...actor, points, sourceType: 'manual', idempotencyKey })
  }
}

/** Writes the template patient's ledger through the service; answers its balance and entry ids. */
async function writeTemplateLedger(
  db: Database,
  practiceId: number,
  userId: number,
  patientId: number,
) {
  let clock = new Date()
  const ledger = createLedger({ db, now: () => clock })
  const actor = { practiceId, patientId, userId }
  const results: LedgerResult[] = []
  const realNow = Date.now()
  for (const [index, step] of TEMPLATE.entries()) {
    clock = new Date(realNow - step.daysAgo * DAY_MS)
    results.push(await post(ledger, actor, step, results, `bench:template:${index}`))
  }
  clock = new Date(realNow)
  await ledger.expireDue(practiceId)
  const [range] = await rowsOf<{ first: number; last: number; n: number; balance: number }>(
    db,
    sql`select min(e.id)::int as first, max(e.id)::int as last, count(*)::int as n,
          (select points from patients where id = ${patientId}::int) as balance
        from ledger_entries e where e.patient_id = ${patientId}::int`,
  )
  if (!range || range.n !== ENTRIES_PER_PATIENT || range.last - range.first + 1 !== range.n) {
    throw new Error(
      `The template ledger has ${range?.n} entries, not ${ENTRIES_PER_PATIENT} in a row`,
    )
  }
  return { first: range.first, last: range.last, balance: Number(range.balance) }
}

/**
 * Inserts patients `from` to `to` (1-based numbers within the practice) in one statement: names,
 * e-mails and phones derived from the number, `points` = `balance` × the patient's factor.
 */
async function insertPatients(
  db: Db,
  practiceId: number,
  from: number,
  to: number,
  balance: number,
) {
  const now = new Date()
  await db.execute(sql`
    insert into ${patients} (practice_id, first_name, last_name, email, phone, email_subscription,
      sms_subscription, birth_date, unsubscribe_id, converted, points, last_visit_at, created_at)
    select ${practiceId}::int,
      (string_to_array(${FIRST_NAMES.join(',')}::text, ','))[1 + (n * 13) % ${FIRST_NAMES.length}::int],
      (string_to_array(${LAST_NAMES.join(',')}::text, ','))[1 + (n * 37) % ${LAST_NAMES.length}::int],
      'patient' || n || '@bench.example',
      '555' || lpad(n::text, 7, '0'),
      n % 5 <> 0,
      n % 3 = 0,
      date '1950-01-01' + (n * 7919) % 20000,
      'bench-' || ${practiceId}::int || '-' || n || '-' || md5(random()::text),
      n % 4 = 0,
      ${balance}::int * (1 + (n - 1) % 4),
      ${new Date(now.getTime() - 10 * DAY_MS).toISOString()}::timestamptz,
      ${new Date(now.getTime() - 720 * DAY_MS).toISOString()}::timestamptz - make_interval(secs => n)
    from generate_series(${from}::int, ${to}::int) as n`)
}

/**
 * Copies the template's entries and allocations to the practice's patients with ids above
 * `afterPatientId` that are number `skip + 1` to `skip + take` among them (by id).
 */
async function copyTemplate(
  db: Db,
  practice: ScalePractice,
  afterPatientId: number,
  skip: number,
  take: number,
) {
  const [top] = await rowsOf<{ base: number }>(
    db,
    sql`select coalesce(max(id), 0)::int as base from ledger_entries`,
  )
  const base = Number(top?.base ?? 0)
  const k = ENTRIES_PER_PATIENT
  const template = sql`tmpl as (
      select e.*, (row_number() over (order by e.id))::int as r from ledger_entries e
      where e.patient_id = ${practice.templatePatientId}::int
        and e.id between ${practice.templateFirstEntryId}::int and ${practice.templateLastEntryId}::int
    ), targets as (
      select id as patient_id, n - ${skip}::int - 1 as slot, points / ${practice.templateBalance}::int as f
      from (select p.id, p.points, (row_number() over (order by p.id))::int as n from patients p
            where p.practice_id = ${practice.practiceId}::int and p.id > ${afterPatientId}::int) numbered
      where n > ${skip}::int and n <= ${skip + take}::int
    )`
  const newId = (rank: SQL) => sql`(${base}::int + t.slot * ${k}::int + ${rank})`
  await db.execute(sql`
    with ${template}
    insert into ledger_entries (id, practice_id, patient_id, kind, points, source_type, source_id,
      idempotency_key, reason, expires_at, reverses_id, balance_after, created_by, created_at)
    select ${newId(sql`e.r`)}, e.practice_id, t.patient_id, e.kind, e.points * t.f, e.source_type,
      case when e.source_type in ('expiry', 'reversal') then ${newId(sql`s.r`)} else e.source_id end,
      case when e.idempotency_key is null then null
           when e.kind = 'expire'
             then 'expire:' || ${newId(sql`s.r`)} || ':' || split_part(e.idempotency_key, ':', 3)
           else e.idempotency_key || ':' || t.patient_id end,
      e.reason, e.expires_at,
      case when e.reverses_id is null then null else ${newId(sql`v.r`)} end,
      e.balance_after * t.f, e.created_by, e.created_at
    from tmpl e cross join targets t
    left join tmpl s on s.id = e.source_id
    left join tmpl v on v.id = e.reverses_id`)
  await db.execute(sql`
    with ${template}
    insert into ledger_allocations (practice_id, patient_id, debit_entry_id, lot_entry_id, points,
      created_at)
    select a.practice_id, t.patient_id, ${newId(sql`d.r`)}, ${newId(sql`l.r`)}, a.points * t.f,
      a.created_at
    from ledger_allocations a
    join tmpl d on d.id = a.debit_entry_id
    join tmpl l on l.id = a.lot_entry_id
    cross join targets t`)
}

/**
 * A new practice with an Admin (and a session token for them) and its first patient, whose
 * ledger the service writes: the template the other patients copy.
 */
export async function createScalePractice(db: Database): Promise<ScalePractice> {
  const [practice] = await db
    .insert(practices)
    .values({ practice_name: 'Bench Practice at Scale' })
    .returning({ id: practices.id })
  if (!practice) throw new Error('The bench practice was not created')
  const [admin] = await db
    .insert(users)
    .values({
      practice_id: practice.id,
      email: `admin-${practice.id}@bench.example`,
      password_hash: 'not-a-real-hash',
      first_name: 'Avery',
      last_name: 'Admin',
      access_rights: 'Admin',
    })
    .returning({ id: users.id, practice_id: users.practice_id })
  if (!admin) throw new Error('The bench Admin was not created')
  await insertPatients(db, practice.id, 1, 1, 0)
  const [template] = await rowsOf<{ id: number }>(
    db,
    sql`select id from patients where practice_id = ${practice.id}::int`,
  )
  if (!template) throw new Error('The template patient was not created')
  const ledger = await writeTemplateLedger(db, practice.id, admin.id, template.id)
  return {
    practiceId: practice.id,
    admin,
    adminToken: await mintToken(admin),
    templatePatientId: template.id,
    templateFirstEntryId: ledger.first,
    templateLastEntryId: ledger.last,
    templateBalance: ledger.balance,
    patients: 1,
  }
}

/** Patients whose ledgers are copied in one statement (20 entries each). */
const BATCH = 2_500

/**
 * Grows the practice to `size` patients, each with a copy of the template ledger, in one
 * transaction; then refreshes the planner's statistics, as autovacuum would after a bulk load,
 * and checks the ledger.
 */
export async function growPractice(db: Database, practice: ScalePractice, size: number) {
  const added = size - practice.patients
  if (added <= 0) return
  await db.transaction(async (tx) => {
    const [last] = await rowsOf<{ id: number }>(
      tx,
      sql`select coalesce(max(id), 0)::int as id from patients`,
    )
    const afterPatientId = Number(last?.id ?? 0)
    await insertPatients(
      tx,
      practice.practiceId,
      practice.patients + 1,
      size,
      practice.templateBalance,
    )
    // The foreign-key checks of the entries look each patient up with a plan made on the
    // statistics of the last ANALYZE: made at 100 patients it scans the table, a quadratic insert.
    await tx.execute(sql`analyze patients`)
    for (let skip = 0; skip < added; skip += BATCH) {
      await copyTemplate(tx, practice, afterPatientId, skip, Math.min(BATCH, added - skip))
    }
    await tx.execute(
      sql`select setval(pg_get_serial_sequence('ledger_entries', 'id'), (select max(id) from ledger_entries))`,
    )
  })
  practice.patients = size
  // Fresh statistics first: planned on those of a smaller practice, the check can take minutes.
  await db.execute(sql`analyze`)
  await verifyLedger(db, practice.practiceId)
}

/**
 * Throws unless the practice's ledger holds together: each cached balance is the sum of the
 * patient's entries and the `balance_after` of their last entry, no lot gave more than it had,
 * and no lapsed lot still has points (a request would post its expiry first).
 */
export async function verifyLedger(db: Database, practiceId: number): Promise<void> {
  const [check] = await rowsOf<{ drift: number; overdrawn: number; lapsed: number }>(
    db,
    sql`select
      (select count(*)::int from patients p
         left join lateral (select coalesce(sum(points), 0)::int as total,
                              (array_agg(balance_after order by id desc))[1] as last
                            from ledger_entries where patient_id = p.id) e on true
         where p.practice_id = ${practiceId}::int
           and (p.points <> e.total or p.points <> coalesce(e.last, 0))) as drift,
      (select count(*)::int from ledger_entries l
         join (select lot_entry_id, sum(points) as used from ledger_allocations
               where practice_id = ${practiceId}::int group by lot_entry_id) a
           on a.lot_entry_id = l.id
         where a.used > l.points or a.used < 0) as overdrawn,
      (select count(*)::int from ledger_entries l
         where l.practice_id = ${practiceId}::int and l.points > 0
           and l.kind in ('earn', 'bonus', 'adjust') and l.expires_at <= now()
           and l.points > coalesce((select sum(points) from ledger_allocations
                                    where lot_entry_id = l.id), 0)) as lapsed`,
  )
  if (!check || check.drift || check.overdrawn || check.lapsed) {
    throw new Error(
      `The seeded ledger does not hold together: ${check?.drift} balances drift, ` +
        `${check?.overdrawn} lots overdrawn, ${check?.lapsed} lapsed lots with points left`,
    )
  }
}
