/**
 * An offer's statuses and a claim's, and nothing else: the promotions page's address (its
 * `?status=` tab) and the offer page's (its claims' `?claims=` filter) are checked by the router
 * before the page is loaded, so they are kept apart from
 * domain/promotions.ts, whose schemas (and the patient, visit and ledger schemas they build on)
 * load with the promotions pages, not with every page.
 */

/** The statuses, in the order of the tabs. */
export const PROMOTION_STATUSES = ['draft', 'scheduled', 'live', 'ended', 'archived'] as const
export type PromotionStatus = (typeof PROMOTION_STATUSES)[number]

/** The tabs' names. */
export const PROMOTION_STATUS_LABELS: Record<PromotionStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  live: 'Live',
  ended: 'Ended',
  archived: 'Archived',
}

/** The statuses of a claim. */
export const CLAIM_STATUSES = ['claimed', 'redeemed', 'expired'] as const
export type ClaimStatus = (typeof CLAIM_STATUSES)[number]
