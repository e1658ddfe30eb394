import { and, asc, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm'
import { pointsForItem } from '#domain/ledger.ts'
import {
  CATALOGUE_MESSAGES,
  type CatalogueItem,
  type CatalogueItemInput,
} from '#domain/practice-data.ts'
import type { Database } from '#server/db/client.ts'
import type { procedures, products } from '#server/db/schema.ts'
import { conflict, notFound } from '#server/lib/domain-error.ts'
import { readProgrammeRules } from '#server/modules/ledger/index.ts'

export type CatalogueTable = typeof procedures | typeof products

type CatalogueRow = {
  id: number
  practice_id: number
  name: string
  price: number
  points: number | null
  min_days_between: number
  archived_at: Date | null
}

/** A row as the API answers it: `points` is what one unit earns under today's rules. */
function toItem(row: CatalogueRow, pointsPerDollar: number): CatalogueItem {
  return {
    id: row.id,
    practice_id: row.practice_id,
    name: row.name,
    price: row.price,
    points: pointsForItem(row, 1, { points_per_dollar: pointsPerDollar }),
    own_points: row.points,
    min_days_between: row.min_days_between,
    archived: row.archived_at !== null,
  }
}

/** The 409 of a name an active item already has: the sentence names it, details carry its id. */
const nameTaken = (existing: { id: number; name: string }) =>
  conflict(CATALOGUE_MESSAGES.nameTaken(existing.name), {
    field: 'name',
    existing_id: existing.id,
  })

/** Whether `error` is the database refusing a second active item of a name (migration 0028). */
function isNameIndexViolation(error: unknown): boolean {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown }
    if (code === '23505')
      return typeof constraint !== 'string' || constraint.endsWith('_name_unique')
  }
  return false
}

/**
 * The use cases of one half of the catalogue (`procedures` or `products`) for a practice: list,
 * add, change, archive and restore, each answering the item as the API shows it.
 */
export function catalogueService(db: Database, now: () => Date, table: CatalogueTable) {
  const columns = {
    id: table.id,
    practice_id: table.practice_id,
    name: table.name,
    price: table.price,
    points: table.points,
    min_days_between: table.min_days_between,
    archived_at: table.archived_at,
  }
  const pointsPerDollar = async (practiceId: number) =>
    (await readProgrammeRules(db, practiceId)).points_per_dollar

  /** The item `id` of the user's practice, or 404 (another practice's reads as unknown). */
  async function ownItem(practiceId: number, id: number): Promise<CatalogueRow> {
    const [row] = await db.select(columns).from(table).where(eq(table.id, id))
    if (!row || row.practice_id !== practiceId) throw notFound(CATALOGUE_MESSAGES.notFound)
    return row
  }

  /**
   * Refuses (409) a name that an active item of the practice other than `exceptId` already has,
   * case and surrounding spaces aside, naming that item (the database's unique index, migration
   * 0028, holds the same rule when two requests race).
   */
  async function refuseTakenName(practiceId: number, name: string, exceptId?: number) {
    const [taken] = await db
      .select({ id: table.id, name: table.name })
      .from(table)
      .where(
        and(
          eq(table.practice_id, practiceId),
          isNull(table.archived_at),
          sql`lower(btrim(${table.name})) = lower(btrim(${name}))`,
          exceptId === undefined ? undefined : ne(table.id, exceptId),
        ),
      )
      .limit(1)
    if (taken) throw nameTaken(taken)
  }

  /** Runs a write; a race lost to the unique index answers as {@link refuseTakenName} does. */
  async function writeName<T>(
    practiceId: number,
    name: string,
    exceptId: number | undefined,
    write: () => Promise<T>,
  ): Promise<T> {
    await refuseTakenName(practiceId, name, exceptId)
    try {
      return await write()
    } catch (error) {
      if (isNameIndexViolation(error)) await refuseTakenName(practiceId, name, exceptId)
      throw error
    }
  }

  /** Archives or restores item `id` of the practice; archiving twice keeps the first date. */
  async function setArchived(practiceId: number, id: number, archived: boolean) {
    const item = await ownItem(practiceId, id)
    const update = () =>
      db
        .update(table)
        .set({ archived_at: archived ? (item.archived_at ?? now()) : null })
        .where(eq(table.id, item.id))
        .returning(columns)
    // Restoring an item brings its name back among the active ones.
    const [row] =
      archived || item.archived_at === null
        ? await update()
        : await writeName(practiceId, item.name, item.id, update)
    if (!row) throw notFound(CATALOGUE_MESSAGES.notFound)
    return toItem(row, await pointsPerDollar(practiceId))
  }

  return {
    /** The practice's items that are (or, `archived`, are not) in the catalogue, by name. */
    async list(practiceId: number, archived: boolean): Promise<CatalogueItem[]> {
      const [rows, perDollar] = await Promise.all([
        db
          .select(columns)
          .from(table)
          .where(
            and(
              eq(table.practice_id, practiceId),
              archived ? isNotNull(table.archived_at) : isNull(table.archived_at),
            ),
          )
          .orderBy(asc(table.name), asc(table.id)),
        pointsPerDollar(practiceId),
      ])
      return rows.map((row) => toItem(row, perDollar))
    },

    /** Adds an item, unless an active item of the practice has its name. */
    async add(practiceId: number, input: CatalogueItemInput): Promise<CatalogueItem> {
      const [row] = await writeName(practiceId, input.name, undefined, () =>
        db
          .insert(table)
          .values({ ...input, practice_id: practiceId, created_at: now() })
          .returning(columns),
      )
      if (!row) throw new Error('The catalogue item was not stored')
      return toItem(row, await pointsPerDollar(practiceId))
    },

    /** Replaces item `id` of the practice; an active item keeps its name unique. */
    async change(
      practiceId: number,
      id: number,
      input: CatalogueItemInput,
    ): Promise<CatalogueItem> {
      const item = await ownItem(practiceId, id)
      const update = () =>
        db.update(table).set(input).where(eq(table.id, item.id)).returning(columns)
      // An archived item's name is free until it is restored.
      const [row] =
        item.archived_at === null
          ? await writeName(practiceId, input.name, item.id, update)
          : await update()
      if (!row) throw notFound(CATALOGUE_MESSAGES.notFound)
      return toItem(row, await pointsPerDollar(practiceId))
    },

    setArchived,
  }
}
