/**
 * Test support for the delivery providers: an SMTP server and a stand-in for Twilio's REST API,
 * both in-process on 127.0.0.1 and a free port, recording what they receive, so no test reaches
 * the internet. Also a small reader for the MIME messages the SMTP server keeps.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'

/** One message as the SMTP server received it. */
export type Received = { from: string; to: string[]; raw: string }

/** A mail server on 127.0.0.1 and a free port that keeps what it receives and who logged in. */
export async function startSmtpServer(options: SMTPServerOptions = {}) {
  const received: Received[] = []
  const logins: { username?: string | null | undefined; password?: string | null | undefined }[] =
    []
  const server = new SMTPServer({
    // Plain text on the loopback only, so the test can read the login (TLS cases set `secure`).
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username, password: auth.password })
      callback(null, { user: auth.username })
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
    ...options,
  })
  // Clients that hang up mid-handshake (the TLS case) are expected here, not test failures.
  const errors: Error[] = []
  server.on('error', (error) => errors.push(error))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    port,
    received,
    logins,
    errors,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A part of a received message: its headers (lower-case names) and its decoded body. */
export type MimePart = { headers: Record<string, string>; body: string }

/** Header block → lower-case names, folded lines joined. */
function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of block.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}

function decodeBody(body: string, encoding = '7bit'): string {
  if (/quoted-printable/i.test(encoding)) {
    const latin1 = body
      .replace(/=\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      )
    return Buffer.from(latin1, 'latin1').toString('utf8')
  }
  if (/base64/i.test(encoding)) return Buffer.from(body, 'base64').toString('utf8')
  return body
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) in a header. */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
    )
}

/** A received message's headers and decoded parts (one part, or the parts of a multipart). */
export function parseMessage(raw: string): { headers: Record<string, string>; parts: MimePart[] } {
  const text = raw.replace(/\r\n/g, '\n')
  const split = text.indexOf('\n\n')
  const headers = parseHeaders(text.slice(0, split))
  const content = text.slice(split + 2)
  const boundary = /boundary="?([^";]+)"?/.exec(headers['content-type'] ?? '')?.[1]
  if (!boundary) {
    return {
      headers,
      parts: [
        {
          headers,
          body: decodeBody(content.replace(/\n$/, ''), headers['content-transfer-encoding']),
        },
      ],
    }
  }
  const parts = content
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((chunk) => {
      const part = chunk.replace(/^\n/, '').replace(/\n$/, '')
      const end = part.indexOf('\n\n')
      const partHeaders = parseHeaders(part.slice(0, end))
      return {
        headers: partHeaders,
        body: decodeBody(part.slice(end + 2), partHeaders['content-transfer-encoding']),
      }
    })
  return { headers, parts }
}

/** The first part whose Content-Type starts with `type` (`text/plain`, `text/html`). */
export function partOf(parts: MimePart[], type: string): MimePart | undefined {
  return parts.find((part) => part.headers['content-type']?.startsWith(type))
}

/** One request as the stub received it. */
export type Recorded = {
  method: string
  path: string
  headers: IncomingMessage['headers']
  form: Record<string, string>
}

/** How the stub answers a request. */
export type Reply = (response: ServerResponse) => void

/** Answers like Twilio's Messages endpoint when a message is accepted. */
export const twilioCreated: Reply = (response) => {
  response.writeHead(201, { 'Content-Type': 'application/json' })
  response.end(JSON.stringify({ sid: 'SM0123456789abcdef0123456789abcdef', status: 'queued' }))
}

/**
 * A stand-in for Twilio's REST API on 127.0.0.1 that records every request and answers with
 * `reply` ({@link twilioCreated} unless given; `setReply` changes it for the next requests).
 */
export async function startTwilioStub(initialReply: Reply = twilioCreated) {
  let reply = initialReply
  const requests: Recorded[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
      })
      reply(response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    setReply(next: Reply) {
      reply = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
