import * as v from 'valibot'
import {
  type CatalogueItem,
  type CatalogueItemInput,
  CatalogueItemSchema,
} from '#domain/practice-data.ts'
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
  return v.parse(v.array(CatalogueItemSchema), await http.get(kind, { searchParams }).json())
}

/** `POST /procedures` or `PUT /procedures/{id}` (Manager, Admin): adds or changes an item. */
export async function saveCatalogueItem(
  kind: CatalogueKind,
  input: CatalogueItemInput,
  id?: number,
): Promise<CatalogueItem> {
  const answer = id
    ? await http.put(`${kind}/${id}`, { json: input }).json()
    : await http.post(kind, { json: input }).json()
  return v.parse(CatalogueItemSchema, answer)
}

/** `POST /procedures/{id}/archive` or `/restore` (Manager, Admin). */
export async function setCatalogueItemArchived(
  kind: CatalogueKind,
  id: number,
  archived: boolean,
): Promise<CatalogueItem> {
  return v.parse(
    CatalogueItemSchema,
    await http.post(`${kind}/${id}/${archived ? 'archive' : 'restore'}`).json(),
  )
}
