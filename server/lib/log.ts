import { pino } from 'pino'

/**
 * Where the server writes its log lines: pino, structured (one JSON object a line in production),
 * with every personal or secret field redacted before it is written. Injected so that tests stay
 * quiet and can read what would have been written (`memoryLogger`).
 *
 * Lines never carry passwords, codes, tokens, request bodies, SQL or its parameters: a log
 * is read by more people than the data it describes. Database failures are logged by SQLSTATE code and constraint only.
 */
export type Logger = {
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, error?: unknown, fields?: LogFields): void
}

/** Extra structured fields of a line (`route`, `action`, ...); secret-looking keys are redacted. */
export type LogFields = Record<string, unknown>

/** What replaces a redacted value. */
export const REDACTED = '[redacted]'

/**
 * Field names whose values are personal or secret, wherever they appear in a line. pino's own
 * `redact` paths cover them at the top level and one and two levels down; the `log` formatter
 * below catches them at any depth (a key that matches {@link SECRET_OR_PERSONAL_KEY}).
 */
export const REDACTED_KEYS = [
  'password',
  'password_hash',
  'passwordConfirmation',
  'newPassword',
  'code',
  'code_hash',
  'token',
  'jwt',
  'secret',
  'authorization',
  'cookie',
  'authyId',
  'email',
  'to',
  'phone',
  'cell_phone',
  'first_name',
  'last_name',
  'name',
  'username',
  'address',
  'unsubscribe_id',
  'stripe_id',
  'card',
  'number',
  'cvc',
  'nextech',
  'params',
  'parameters',
  'query',
  'sql',
  'detail',
  'body',
] as const

// Every key that looks personal or secret, also when it is spelled differently from the list.
const SECRET_OR_PERSONAL_KEY =
  /pass|code|token|secret|jwt|hash|authori[sz]ation|cookie|authy|e-?mail|phone|name|address|unsubscribe|stripe|card|cvc|nextech|param|query|sql|detail|body|^to$|^number$/i

// Keys pino itself writes or that carry our own safe summaries.
const SAFE_KEYS = new Set(['level', 'time', 'pid', 'msg', 'failure', 'route', 'type', 'state'])

const REDACT_PATHS = REDACTED_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`])

/** `value` with every personal or secret key replaced by {@link REDACTED}, at any depth. */
function redactDeep(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      !SAFE_KEYS.has(key) && SECRET_OR_PERSONAL_KEY.test(key)
        ? REDACTED
        : redactDeep(item, depth + 1)
  }
  return out
}

/**
 * Masks what looks personal inside free text (an error's message or stack): e-mail addresses,
 * runs of six or more digits (phone numbers, codes), long hex or base64url runs (tokens, hashes)
 * and anything after "params:" (drizzle's failed-query messages list the parameters there).
 */
export function scrubText(text: string): string {
  return text
    .replace(/(params|parameters):[^\n]*/gi, `$1: ${REDACTED}`)
    .replace(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, '[email]')
    .replace(/\$argon2[^\s'"]*/g, REDACTED)
    .replace(/\b[A-Za-z0-9_-]{24,}\b/g, (run) => (/\d/.test(run) ? REDACTED : run))
    .replace(/\d[\d\s()-]{4,}\d/g, (run) => (run.replace(/\D/g, '').length >= 6 ? '[digits]' : run))
}

/** The SQLSTATE of a Postgres error, also when drizzle wraps it (`DrizzleQueryError.cause`). */
export function postgresCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** The constraint a Postgres error names (`users_email_unique`), also through drizzle's wrapper. */
function postgresConstraint(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const constraint = (current as { constraint?: unknown }).constraint
    if (typeof constraint === 'string' && /^[\w.]{1,128}$/.test(constraint)) return constraint
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** Whether `error` came from the database driver (directly or wrapped by drizzle). */
function isDatabaseError(error: unknown): boolean {
  if (postgresCode(error)) return true
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const name = (current as { name?: unknown }).name
    const message = (current as { message?: unknown }).message
    if (name === 'DrizzleQueryError' || name === 'DatabaseError') return true
    if (typeof message === 'string' && message.startsWith('Failed query:')) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/**
 * What a line says about an error (its `failure` field): never the driver's message, SQL or
 * parameters. `state` is the SQLSTATE (`23505`).
 */
export type LoggedError =
  | { type: 'DatabaseError'; state: string | null; constraint: string | null }
  | { type: string; message: string; stack: string | null }

/**
 * The loggable summary of an error. A database failure is its SQLSTATE and constraint only
 * (the driver's message, `detail`, query and parameters carry the request's values: names,
 * e-mails, tokens, code hashes). Any other error keeps its name, and its message and stack with
 * e-mail addresses, digit runs and token-like runs masked ({@link scrubText}).
 */
export function describeError(error: unknown): LoggedError {
  if (isDatabaseError(error)) {
    return {
      type: 'DatabaseError',
      state: postgresCode(error) ?? null,
      constraint: postgresConstraint(error) ?? null,
    }
  }
  if (error instanceof Error) {
    return {
      type: error.name,
      message: scrubText(error.message),
      stack: error.stack ? scrubText(error.stack) : null,
    }
  }
  return { type: typeof error, message: REDACTED, stack: null }
}

/** A destination pino writes its JSON lines to. */
export type LogDestination = { write(line: string): void }

/** One line as pino wrote it. */
export type LogRecord = {
  level: number
  msg: string
  failure?: LoggedError
  [field: string]: unknown
}

const LEVEL_NAMES: Record<number, string> = { 30: 'info', 40: 'warn', 50: 'error' }

/** `info: message`, then the error's stack or summary: the human-readable form of a record. */
export function formatRecord(record: LogRecord): string {
  const level = LEVEL_NAMES[record.level] ?? String(record.level)
  const err = record.failure
  let suffix = ''
  if (err?.type === 'DatabaseError' && 'state' in err) {
    suffix = ` DatabaseError state=${err.state ?? 'none'} constraint=${err.constraint ?? 'none'}`
  } else if (err && 'message' in err) {
    suffix = ` ${err.stack ?? `${err.type}: ${err.message}`}`
  }
  return `${level}: ${record.msg}${suffix}`
}

/**
 * A {@link Logger} writing pino JSON lines to `destination` (stdout by default), with the redaction
 * of {@link REDACTED_KEYS} (pino's `redact`) and of any personal-looking key at any depth.
 */
export function createLogger(destination?: LogDestination): Logger {
  const logger = pino(
    {
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      formatters: {
        level: (_label, number) => ({ level: number }),
        log: (object) => redactDeep(object) as Record<string, unknown>,
      },
    },
    destination ?? pino.destination({ fd: 1, sync: true }),
  )
  return {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, error, fields) =>
      logger.error(
        error === undefined ? (fields ?? {}) : { ...fields, failure: describeError(error) },
        message,
      ),
  }
}

/**
 * The server's own log: pino JSON lines on stdout with `LOG_FORMAT=json` (the default in
 * production, for a log collector), otherwise the same redacted records written as readable
 * `level: message` lines.
 */
export function processLogger(env: Record<string, string | undefined> = process.env): Logger {
  const json =
    (env.LOG_FORMAT?.trim() || (env.NODE_ENV === 'production' ? 'json' : 'text')) === 'json'
  if (json) return createLogger()
  return createLogger({
    write(line) {
      const record = JSON.parse(line) as LogRecord
      const text = `${formatRecord(record)}\n`
      if (record.level >= 40) process.stderr.write(text)
      else process.stdout.write(text)
    },
  })
}

/**
 * The process's log (see {@link processLogger}), made at its first line: `npm start` builds the
 * web app with NODE_ENV=production before the server starts, and the format follows the server's
 * own mode, not the build's.
 */
export const consoleLogger: Logger = (() => {
  let logger: Logger | undefined
  const get = () => {
    logger ??= processLogger()
    return logger
  }
  return {
    info: (message, fields) => get().info(message, fields),
    warn: (message, fields) => get().warn(message, fields),
    error: (message, error, fields) => get().error(message, error, fields),
  }
})()

/**
 * A logger that keeps what it would write in memory: `lines` in the readable form
 * (`error: message ...`), `records` as the JSON objects, `raw` the exact text pino produced.
 * It runs through the same pino instance and redaction as the real log.
 */
export function memoryLogger(): Logger & { lines: string[]; records: LogRecord[]; raw: string[] } {
  const lines: string[] = []
  const records: LogRecord[] = []
  const raw: string[] = []
  const logger = createLogger({
    write(line) {
      raw.push(line)
      const record = JSON.parse(line) as LogRecord
      records.push(record)
      lines.push(formatRecord(record))
    },
  })
  return { ...logger, lines, records, raw }
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
