/**
 * Where the server writes its log lines. Injected so that tests stay quiet and can read them.
 * Lines never carry passwords, codes, tokens or request bodies (DESIGN.md section 8).
 */
export type Logger = {
  info(message: string): void
  warn(message: string): void
  error(message: string, error?: unknown): void
}

/** The process console as a {@link Logger}. */
export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message, error) =>
    error === undefined ? console.error(message) : console.error(message, error),
}

/** A logger that keeps its lines in memory (tests read `lines`). */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return {
    lines,
    info: (message) => lines.push(`info: ${message}`),
    warn: (message) => lines.push(`warn: ${message}`),
    error: (message, error) =>
      lines.push(
        `error: ${message}${error instanceof Error ? ` ${error.stack ?? error.message}` : ''}`,
      ),
  }
}

/** `jane.doe@example.com` → `j***@example.com`: enough to follow a message, not to read an address. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at < 1) return '***'
  return `${email[0]}***${email.slice(at)}`
}

/** `+15551234567` → `***4567`. */
export function maskPhone(phone: string): string {
  return phone.length <= 4 ? '***' : `***${phone.slice(-4)}`
}
