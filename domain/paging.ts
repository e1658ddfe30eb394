import * as v from 'valibot'

/** The entries of a paged answer: one page of `item`s, how many there are in all, and the page. */
export function pageEntries<const TItem extends v.GenericSchema>(item: TItem) {
  return {
    data: v.array(item),
    total: v.number(),
    page: v.number(),
    pageSize: v.number(),
  }
}

/** A paged answer of `item`s and nothing else (see {@link pageEntries}). */
export function pageSchema<const TItem extends v.GenericSchema>(item: TItem) {
  return v.object(pageEntries(item))
}
