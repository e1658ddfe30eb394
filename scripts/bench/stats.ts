/** The p-th percentile (0–100) of `values` by nearest rank; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number
}

/** The median of `values` (the 50th percentile by nearest rank). */
export function median(values: readonly number[]): number {
  return percentile(values, 50)
}

/** Bytes as kilobytes (1 KB = 1,000 bytes, as Vite and Lighthouse print them) with one decimal. */
export function kb(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} KB`
}

/** Milliseconds with a precision that suits their size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a'
  return value >= 100 ? `${Math.round(value)} ms` : `${value.toFixed(1)} ms`
}

/** A whole number with thousands separators. */
export function count(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a'
}
