/** What the wallet's page knows before any call: the practice of its address, and its name. */
export type WalletAddress = { practiceId: number | null; practiceName: string | undefined }

/**
 * `/wallet/{practiceId}` (or anything below it) → the practice's id; null when the address names
 * none, or the server found no such practice (`<meta name="glow:practice" content="missing">`).
 * The server puts the practice's name in `<meta name="glow:practice-name">`.
 */
export function walletAddress(
  pathname: string,
  doc: Pick<Document, 'querySelector'>,
): WalletAddress {
  const id = /^\/wallet\/(\d{1,9})(?:\/|$)/.exec(pathname)?.[1]
  // The server found no such practice.
  const missing = doc.querySelector('meta[name="glow:practice"][content="missing"]') !== null
  const name = doc.querySelector<HTMLMetaElement>('meta[name="glow:practice-name"]')?.content.trim()
  return { practiceId: id && !missing ? Number(id) : null, practiceName: name || undefined }
}
