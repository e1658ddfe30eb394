import * as v from 'valibot'
import { type CatalogueItem, CatalogueItemSchema } from '#domain/practice-data.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** The two halves of the catalogue, as the API names them. */
export type CatalogueKind = 'procedures' | 'products'

/** `GET /procedures?practice={id}` (or products): the items, or the archived ones. */
export async function listCatalogue(
  kind: CatalogueKind,
  practiceId: number,
  archived = false,
): Promise<CatalogueItem[]> {
  const searchParams: Record<string, string | number> = { practice: practiceId }
  if (archived) searchParams.archived = 'true'
  return parseAnswer(
    `GET /api/${kind}` as const,
    v.array(CatalogueItemSchema),
    await http.get(kind, { searchParams }).json(),
  )
}

/** `POST /procedures` or `PUT /procedures/{id}` (Manager, Admin): adds or changes an item. */
export async function saveCatalogueItem(
  kind: CatalogueKind,
  input: Body<`POST /api/${CatalogueKind}`>,
  id?: number,
): Promise<CatalogueItem> {
  if (id) {
    return parseAnswer(
      `PUT /api/${kind}/:id` as const,
      CatalogueItemSchema,
      await http
        .put(`${kind}/${id}`, {
          json: input satisfies Body<`PUT /api/${CatalogueKind}/:id`>,
        })
        .json(),
    )
  }
  return parseAnswer(
    `POST /api/${kind}` as const,
    CatalogueItemSchema,
    await http.post(kind, { json: input }).json(),
  )
}

/** `POST /procedures/{id}/archive` or `/restore` (Manager, Admin). */
export async function setCatalogueItemArchived(
  kind: CatalogueKind,
  id: number,
  archived: boolean,
): Promise<CatalogueItem> {
  const action = archived ? 'archive' : 'restore'
  return parseAnswer(
    `POST /api/${kind}/:id/${action}` as const,
    CatalogueItemSchema,
    await http.post(`${kind}/${id}/${action}`).json(),
  )
}
