import type { PracticeAnswer, PracticeSettings } from '#domain/practice-settings.ts'
import type { NextechSettings } from '#domain/sign-up/practice-details.ts'
import { recordWithin } from '#server/audit/audit.ts'
import { type Actor, actorEvent } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
import { openJson } from '#server/db/data-key.ts'
import { type DetailRow, forgetNextechConnection, readDetails, saveDetails } from './queries.ts'

/** The stored Nextech settings, opened; null without any. */
function storedNextech(row: DetailRow, dataKey: Buffer): NextechSettings | null {
  return row.nextech ? openJson<NextechSettings>(row.nextech, dataKey) : null
}

/** The practice as `GET /practice` answers it: the Nextech username and password only as set or not. */
function toAnswer(row: DetailRow, nextech: NextechSettings | null): PracticeAnswer {
  return {
    id: row.id,
    practice_name: row.practice_name,
    office_name: row.office_name ?? '',
    url: row.url ?? '',
    practice_phone: row.practice_phone ?? '',
    practice_email: row.practice_email ?? '',
    practice_address: row.practice_address ?? '',
    practice_address_2: row.practice_address_2 ?? '',
    city: row.city ?? '',
    practice_zip: row.practice_zip ?? '',
    state: row.state ?? '',
    country: row.country === 'CA' ? 'CA' : 'US',
    e_record: row.e_record === 'nextech' ? 'nextech' : 'no_integration',
    nextech:
      row.e_record === 'nextech' && nextech
        ? {
            client_id: nextech.client_id,
            nx_practice_id: nextech.nx_practice_id,
            username_set: nextech.username !== '',
            password_set: nextech.password !== '',
          }
        : null,
    footer_links: {
      about: row.footer_about_url ?? '',
      privacy: row.footer_privacy_url ?? '',
      support: row.footer_support ?? '',
    },
    image_path: row.image_path,
  }
}

/** The audit's name of each field a save can change (never a value). */
function changedFields(
  before: PracticeAnswer,
  after: PracticeAnswer,
  credentialsChanged: boolean,
): string[] {
  const plain = [
    'practice_name',
    'office_name',
    'url',
    'practice_phone',
    'practice_email',
    'practice_address',
    'practice_address_2',
    'city',
    'practice_zip',
    'state',
    'country',
    'e_record',
  ] as const
  return [
    ...plain.filter((key) => before[key] !== after[key]),
    ...(before.nextech?.client_id !== after.nextech?.client_id ? ['nextech_client_id'] : []),
    ...(before.nextech?.nx_practice_id !== after.nextech?.nx_practice_id
      ? ['nextech_practice_id']
      : []),
    ...(credentialsChanged ? ['nextech_credentials'] : []),
    ...(['about', 'privacy', 'support'] as const)
      .filter((key) => before.footer_links[key] !== after.footer_links[key])
      .map((key) => `footer_${key}_link`),
  ]
}

/** The practice's details as read for a change: the row and its opened Nextech settings. */
export type StoredDetails = { row: DetailRow; nextech: NextechSettings | null }

/**
 * The practice's details in Settings: read with the Nextech username and password answered only
 * as set or not, and saved with an audit event naming the fields that changed, never their
 * values, in the transaction of the save.
 */
export function practiceDetailsService(ctx: Pick<ServerContext, 'db' | 'config' | 'now'>) {
  const dataKey = ctx.config.dataKey
  return {
    /** The stored details of the practice (not found when there is none). */
    async stored(practiceId: number): Promise<StoredDetails> {
      const row = await readDetails(ctx.db, practiceId)
      return { row, nextech: storedNextech(row, dataKey) }
    },

    /** The details as `GET /practice` answers them. */
    async read(practiceId: number): Promise<PracticeAnswer> {
      const row = await readDetails(ctx.db, practiceId)
      return toAnswer(row, storedNextech(row, dataKey))
    },

    /** Saves `next` over `before` (what {@link stored} read); answers the details as saved. */
    save(actor: Actor, before: StoredDetails, next: PracticeSettings): Promise<PracticeAnswer> {
      return ctx.db.transaction(async (tx) => {
        const saved = await saveDetails(tx, dataKey, actor.user.practice_id, next)
        const after = toAnswer(saved, next.nextech)
        const credentialsChanged =
          (before.nextech?.username ?? '') !== (next.nextech?.username ?? '') ||
          (before.nextech?.password ?? '') !== (next.nextech?.password ?? '')
        const fields = changedFields(
          toAnswer(before.row, before.nextech),
          after,
          credentialsChanged,
        )
        if (fields.length > 0) {
          const event = actorEvent(actor, 'practice.details_changed', { fields: fields.join(',') })
          await recordWithin(tx, event, ctx.now())
        }
        // The Nextech connection was about the fields that were: its tokens and status go, and
        // the next test or sync starts from the new ones.
        if (fields.some((field) => field === 'e_record' || field.startsWith('nextech_'))) {
          await forgetNextechConnection(tx, actor.user.practice_id)
        }
        return after
      })
    },
  }
}
