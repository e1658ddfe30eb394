import { type AddressInfo, createServer, type Server, type Socket } from 'node:net'
import type { SMTPServerOptions } from 'smtp-server'
import { afterEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '#server/lib/log.ts'
import {
  createSmtpMail,
  DEFAULT_MAIL_FROM,
  describeSmtpUrl,
  MailDeliveryError,
  mailHtml,
  safeHeaders,
} from '#server/messaging/smtp-mail.ts'
import {
  decodeHeader,
  parseMessage,
  partOf,
  startSmtpServer,
} from '#server/testing/provider-stubs.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

async function smtpServer(options?: SMTPServerOptions) {
  const server = await startSmtpServer(options)
  cleanups.push(server.close)
  return server
}

/** The error a send rejects with. */
async function sendError(send: Promise<void>): Promise<MailDeliveryError> {
  const error = await send.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(MailDeliveryError)
  return error as MailDeliveryError
}

const RESET_TEXT = [
  'Hello Rhea,',
  '',
  'Someone asked to reset the password of your Glow Rewards account. To choose a new password, open this link within one hour:',
  '',
  'http://localhost:3000/reset?code=abc123_XYZ-def',
  '',
  'If it was not you, ignore this e-mail: your password stays as it is.',
].join('\n')

describe('createSmtpMail', () => {
  it('delivers recipient, subject, text and an HTML alternative with the link, logged in with the URL credentials', async () => {
    const server = await smtpServer()
    const log = memoryLogger()
    const mail = createSmtpMail({
      url: `smtp://mailer%40clinic.example:s3cr%3At@127.0.0.1:${server.port}`,
      log,
    })

    await mail.send({
      to: 'rhea@example.com',
      subject: 'Reset your Glow Rewards password',
      text: RESET_TEXT,
      link: 'http://localhost:3000/reset?code=abc123_XYZ-def',
    })

    expect(server.logins).toEqual([{ username: 'mailer@clinic.example', password: 's3cr:t' }])
    expect(server.received).toHaveLength(1)
    const [message] = server.received
    expect(message?.from).toBe('no-reply@glowrewards.example')
    expect(message?.to).toEqual(['rhea@example.com'])
    const { headers, parts } = parseMessage(message?.raw ?? '')
    expect(headers.from).toBe(DEFAULT_MAIL_FROM)
    expect(headers.to).toBe('rhea@example.com')
    expect(decodeHeader(headers.subject ?? '')).toBe('Reset your Glow Rewards password')
    expect(headers['content-type']).toMatch(/^multipart\/alternative/)
    expect(partOf(parts, 'text/plain')?.body).toBe(RESET_TEXT)
    const html = partOf(parts, 'text/html')?.body ?? ''
    expect(html).toContain(
      '<a href="http://localhost:3000/reset?code=abc123_XYZ-def">http://localhost:3000/reset?code=abc123_XYZ-def</a>',
    )
    expect(html).toContain('<p>Hello Rhea,</p>')

    // The log names the message and a masked recipient, never the body or the credentials.
    const logged = log.lines.join('\n')
    expect(logged).toMatch(/E-mail "Reset your Glow Rewards password" to r\*\*\*@example\.com sent/)
    expect(logged).not.toContain('abc123')
    expect(logged).not.toContain('rhea@example.com')
    expect(logged).not.toContain('s3cr')
  })

  it('sends text only without a link, from MAIL_FROM, with non-ASCII subjects intact', async () => {
    const server = await smtpServer()
    const mail = createSmtpMail({
      url: `smtp://127.0.0.1:${server.port}`,
      from: 'Clinique Éclat <bonjour@eclat.example>',
    })
    const text = 'Bonjour Zoë,\n\nVotre compte est prêt.'

    await mail.send({ to: 'zoe@example.com', subject: 'Bienvenue chez Éclat', text })

    expect(server.logins).toEqual([])
    const [message] = server.received
    expect(message?.from).toBe('bonjour@eclat.example')
    expect(message?.to).toEqual(['zoe@example.com'])
    const { headers, parts } = parseMessage(message?.raw ?? '')
    expect(decodeHeader(headers.from ?? '')).toBe('Clinique Éclat <bonjour@eclat.example>')
    expect(decodeHeader(headers.subject ?? '')).toBe('Bienvenue chez Éclat')
    expect(headers['content-type']).toMatch(/^text\/plain/)
    expect(parts).toHaveLength(1)
    expect(parts[0]?.body).toBe(text)
  })

  it("sends the queue's Message-ID as it is, the same on a second send of the message", async () => {
    const server = await smtpServer()
    const mail = createSmtpMail({ url: `smtp://127.0.0.1:${server.port}` })
    const messageId = '<7d3f5a52-0c1e-4b8e-9a55-3f0b7c2e9d11@rewards.clinic.example>'
    const message = { to: 'ann@example.com', subject: 'Your points', text: 'Hello', messageId }

    await mail.send(message)
    await mail.send(message)

    const ids = server.received.map((received) => parseMessage(received.raw).headers['message-id'])
    expect(ids).toEqual([messageId, messageId])
  })

  it('throws a clear error when the server refuses the recipient, without the body', async () => {
    const server = await smtpServer({
      onRcptTo(address, _session, callback) {
        const refusal = new Error(`<${address.address}>: Recipient address rejected`) as Error & {
          responseCode: number
        }
        refusal.responseCode = 550
        callback(refusal)
      },
    })
    const mail = createSmtpMail({ url: `smtp://127.0.0.1:${server.port}` })

    const error = await sendError(
      mail.send({ to: 'gone@example.com', subject: 'Welcome to Glow Rewards', text: RESET_TEXT }),
    )

    expect(error.message).toMatch(
      new RegExp(
        `^E-mail "Welcome to Glow Rewards" could not be sent over smtp://127\\.0\\.0\\.1:${server.port}: .*550`,
      ),
    )
    expect(error.message).toContain('g***@example.com')
    expect(error.message).not.toContain('gone@example.com')
    expect(error.message).not.toContain('Someone asked')
    expect(error.code).toBe('EENVELOPE')
    expect(error.responseCode).toBe(550)
    expect(server.received).toHaveLength(0)
  })

  it('throws when the login is refused', async () => {
    const server = await smtpServer({
      onAuth(_auth, _session, callback) {
        callback(new Error('Authentication credentials invalid'))
      },
    })
    const mail = createSmtpMail({ url: `smtp://someone:wrong@127.0.0.1:${server.port}` })

    const error = await sendError(mail.send({ to: 'a@example.com', subject: 'Hi', text: 'Hello' }))

    expect(error.code).toBe('EAUTH')
    expect(error.responseCode).toBe(535)
    expect(error.message).toMatch(/could not be sent over smtp:\/\/127\.0\.0\.1:\d+: Invalid login/)
    expect(error.message).not.toContain('wrong')
    expect(server.received).toHaveLength(0)
  })

  it('throws when nothing listens on the port', async () => {
    const closed = await smtpServer()
    await closed.close()
    const mail = createSmtpMail({ url: `smtp://127.0.0.1:${closed.port}` })

    const error = await sendError(mail.send({ to: 'a@example.com', subject: 'Hi', text: 'Hello' }))

    expect(error.code).toBe('ESOCKET')
    expect(error.message).toMatch(/ECONNREFUSED/)
  })

  it('gives up on a server that never greets', async () => {
    const sockets = new Set<Socket>()
    const silent: Server = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    })
    const { port } = silent.address() as AddressInfo
    const mail = createSmtpMail({ url: `smtp://127.0.0.1:${port}`, timeoutMs: 300 })

    const started = Date.now()
    const error = await sendError(mail.send({ to: 'a@example.com', subject: 'Hi', text: 'Hello' }))

    expect(error.code).toBe('ETIMEDOUT')
    expect(error.message).toMatch(/Greeting never received|Timeout/)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('verifies the certificate of an smtps:// server', async () => {
    // smtp-server's built-in certificate is self-signed: a real mail server's would be trusted.
    const server = await smtpServer({ secure: true, disabledCommands: [] })
    const mail = createSmtpMail({ url: `smtps://127.0.0.1:${server.port}` })

    const error = await sendError(mail.send({ to: 'a@example.com', subject: 'Hi', text: 'Hello' }))

    expect(error.message).toMatch(/certificate/i)
    expect(server.received).toHaveLength(0)
  })

  it('passes URL options to the client: requireTLS refuses a server without STARTTLS', async () => {
    const server = await smtpServer()
    const mail = createSmtpMail({ url: `smtp://u:p@127.0.0.1:${server.port}?requireTLS=true` })

    const error = await sendError(mail.send({ to: 'a@example.com', subject: 'Hi', text: 'Hello' }))

    expect(error.message).toMatch(/STARTTLS/)
    expect(server.logins).toEqual([])
    expect(server.received).toHaveLength(0)
  })

  it('sends its own HTML part and the List-Unsubscribe headers of a patient e-mail', async () => {
    const server = await smtpServer()
    const mail = createSmtpMail({ url: `smtp://127.0.0.1:${server.port}` })
    const unsubscribe =
      '<https://glow.example/unsubscribe/abc_DEF-123>, <https://glow.example/api/unsubscribe/abc_DEF-123>'

    await mail.send({
      to: 'zoe@example.com',
      subject: 'Your points statement',
      text: 'Hello Zoë,\n\nYou earned 120 points.',
      html: '<!doctype html><html><body><p>Hello Zo&euml;,</p></body></html>',
      headers: {
        'List-Unsubscribe': unsubscribe,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    })

    const { headers, parts } = parseMessage(server.received[0]?.raw ?? '')
    expect(headers['content-type']).toMatch(/^multipart\/alternative/)
    expect(decodeHeader(headers['list-unsubscribe'] ?? '')).toBe(unsubscribe)
    expect(headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
    expect(partOf(parts, 'text/plain')?.body).toBe('Hello Zoë,\n\nYou earned 120 points.')
    expect(partOf(parts, 'text/html')?.body).toContain('<p>Hello Zo&euml;,</p>')
  })

  it('refuses a header value with a line break and a header the message sets itself (no header injection)', async () => {
    const server = await smtpServer()
    const mail = createSmtpMail({ url: `smtp://127.0.0.1:${server.port}` })
    const send = (headers: Record<string, string>) =>
      mail.send({ to: 'zoe@example.com', subject: 'Hi', text: 'Hi', headers })

    await expect(
      send({ 'List-Unsubscribe': '<https://a.example>\r\nBcc: x@evil.example' }),
    ).rejects.toThrow('The mail header "List-Unsubscribe" has a line break or a control character')
    await expect(send({ Bcc: 'x@evil.example' })).rejects.toThrow(
      'The mail header "Bcc" cannot be set',
    )
    await expect(send({ 'X-Bad\nName': 'v' })).rejects.toThrow('cannot be set')
    expect(server.received).toHaveLength(0)
    expect(safeHeaders({ 'X-Practice': 'Glow Clinic' })).toEqual({ 'X-Practice': 'Glow Clinic' })
  })

  it('refuses a URL that is not smtp:// or smtps://', () => {
    expect(() => createSmtpMail({ url: 'http://mail.example.com' })).toThrow(
      'The SMTP URL must start with smtp:// or smtps://',
    )
  })
})

describe('describeSmtpUrl', () => {
  it('keeps scheme, host and port, and drops credentials and options', () => {
    expect(describeSmtpUrl('smtp://user:pass@mail.example.com:2525?requireTLS=true')).toBe(
      'smtp://mail.example.com:2525',
    )
    expect(describeSmtpUrl('smtps://user:pass@mail.example.com')).toBe(
      'smtps://mail.example.com:465',
    )
    expect(describeSmtpUrl('smtp://mail.example.com')).toBe('smtp://mail.example.com:587')
  })
})

describe('mailHtml', () => {
  it('escapes what people typed and turns the link into an anchor where the text shows it', () => {
    const html = mailHtml(
      'Hello <b>Jo</b> & "Al",\n\nJoin here:\nhttps://app.example/signup/personnel/abc?x=1&y=2',
      'https://app.example/signup/personnel/abc?x=1&y=2',
    )
    expect(html).toContain('<p>Hello &lt;b&gt;Jo&lt;/b&gt; &amp; &quot;Al&quot;,</p>')
    expect(html).toContain(
      '<p>Join here:<br>\n<a href="https://app.example/signup/personnel/abc?x=1&amp;y=2">https://app.example/signup/personnel/abc?x=1&amp;y=2</a></p>',
    )
    expect(html).not.toContain('<b>')
  })

  it('adds the link at the end when the text does not show it, and anchors web links only', () => {
    expect(mailHtml('Welcome aboard!', 'https://app.example/signin')).toContain(
      '<p>Welcome aboard!</p>\n<p><a href="https://app.example/signin">https://app.example/signin</a></p>',
    )
    expect(mailHtml('Open javascript:alert(1)', 'javascript:alert(1)')).not.toContain('<a')
  })
})
