import { afterEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '#server/lib/log.ts'
import {
  createTwilioSms,
  SmsDeliveryError,
  TWILIO_API_URL,
  TWILIO_TIMEOUT_MS,
  toE164,
} from '#server/messaging/twilio-sms.ts'
import { type Reply, startTwilioStub } from '#server/testing/provider-stubs.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

async function twilioStub(reply?: Reply) {
  const stub = await startTwilioStub(reply)
  cleanups.push(stub.close)
  return stub
}

const ACCOUNT = {
  accountSid: 'AC0123456789abcdef0123456789abcdef',
  authToken: 'auth-token-0123456789',
  from: '+15550100100',
}
const CODE_TEXT = 'Your Glow Rewards confirmation code is 042917. It expires in 10 minutes.'
const MESSAGE = { to: '+15550100101', text: CODE_TEXT, code: '042917' }

/** The error a send rejects with. */
async function sendError(send: Promise<void>): Promise<SmsDeliveryError> {
  const error = await send.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(SmsDeliveryError)
  return error as SmsDeliveryError
}

function jsonReply(status: number, body: unknown): Reply {
  return (response) => {
    response.writeHead(status, { 'Content-Type': 'application/json' })
    response.end(JSON.stringify(body))
  }
}

describe('createTwilioSms', () => {
  it('posts To, From and Body to the account Messages resource with basic auth', async () => {
    const stub = await twilioStub()
    const log = memoryLogger()
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: stub.baseUrl, log })

    await sms.send(MESSAGE)

    expect(stub.requests).toHaveLength(1)
    const [request] = stub.requests
    expect(request?.method).toBe('POST')
    expect(request?.path).toBe(
      '/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Messages.json',
    )
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from('AC0123456789abcdef0123456789abcdef:auth-token-0123456789').toString('base64')}`,
    )
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(request?.form).toEqual({ To: '+15550100101', From: '+15550100100', Body: CODE_TEXT })

    // The log line shows the last digits and Twilio's id, never the code or the token.
    expect(log.lines).toEqual([
      'info: SMS to ***0101 sent through Twilio (SM0123456789abcdef0123456789abcdef)',
    ])
  })

  it('writes the number the way get-code builds it (country code + digits) in E.164', async () => {
    const stub = await twilioStub()
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: `${stub.baseUrl}/` })

    await sms.send({ ...MESSAGE, to: '+1 (555) 010-0102' })

    expect(stub.requests[0]?.path).toBe(
      '/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Messages.json',
    )
    expect(stub.requests[0]?.form.To).toBe('+15550100102')
  })

  it('sends through a Messaging Service when TWILIO_FROM is an MG… SID', async () => {
    const stub = await twilioStub()
    const service = 'MG0123456789abcdef0123456789abcdef'
    const sms = createTwilioSms({ ...ACCOUNT, from: service, baseUrl: stub.baseUrl })

    await sms.send(MESSAGE)

    expect(stub.requests[0]?.form).toEqual({
      To: '+15550100101',
      MessagingServiceSid: service,
      Body: CODE_TEXT,
    })
  })

  it("throws with Twilio's message and code on a 400, masking the number", async () => {
    const stub = await twilioStub(
      jsonReply(400, {
        code: 21211,
        message: "The 'To' number +15550100101 is not a valid phone number.",
        more_info: 'https://www.twilio.com/docs/errors/21211',
        status: 400,
      }),
    )
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: stub.baseUrl })

    const error = await sendError(sms.send(MESSAGE))

    expect(error.message).toBe(
      "SMS to ***0101 not sent: Twilio answered 400: The 'To' number ***0101 is not a valid phone number. (Twilio error 21211)",
    )
    expect(error.status).toBe(400)
    expect(error.twilioCode).toBe(21211)
    expect(error.message).not.toContain('042917')
  })

  it('throws on refused credentials (401)', async () => {
    const stub = await twilioStub(
      jsonReply(401, { code: 20003, message: 'Authenticate', status: 401 }),
    )
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: stub.baseUrl })

    const error = await sendError(sms.send(MESSAGE))

    expect(error.message).toBe(
      'SMS to ***0101 not sent: Twilio answered 401: Authenticate (Twilio error 20003)',
    )
    expect(error.message).not.toContain(ACCOUNT.authToken)
    expect(error.status).toBe(401)
  })

  it('throws on an answer that is not Twilio JSON', async () => {
    const stub = await twilioStub((response) => {
      response.writeHead(503, { 'Content-Type': 'text/html' })
      response.end('<html>Service Unavailable</html>')
    })
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: stub.baseUrl })

    const error = await sendError(sms.send(MESSAGE))

    expect(error.message).toBe(
      'SMS to ***0101 not sent: Twilio answered 503: HTTP 503 Service Unavailable',
    )
    expect(error.twilioCode).toBeUndefined()
  })

  it('gives up when Twilio does not answer in time', async () => {
    const stub = await twilioStub(() => {
      // Never answers; the stub's close() ends the connection.
    })
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: stub.baseUrl, timeoutMs: 200 })

    const started = Date.now()
    const error = await sendError(sms.send(MESSAGE))

    expect(error.message).toBe('SMS to ***0101 not sent: Twilio did not answer within 0.2 s')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(stub.requests).toHaveLength(1)
  })

  it('throws when Twilio cannot be reached', async () => {
    const stub = await startTwilioStub()
    await stub.close()
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: stub.baseUrl })

    const error = await sendError(sms.send(MESSAGE))

    expect(error.message).toMatch(
      /^SMS to \*\*\*0101 not sent: Twilio could not be reached \(.*ECONNREFUSED/,
    )
  })

  it('refuses a number without its country code before calling Twilio', async () => {
    const stub = await twilioStub()
    const sms = createTwilioSms({ ...ACCOUNT, baseUrl: stub.baseUrl })

    const error = await sendError(sms.send({ ...MESSAGE, to: '5550100101' }))

    expect(error.message).toBe('SMS to ***0101 not sent: the number is not in E.164 form')
    expect(stub.requests).toHaveLength(0)
  })

  it("defaults to Twilio's API with a 10 second limit", () => {
    expect(TWILIO_API_URL).toBe('https://api.twilio.com')
    expect(TWILIO_TIMEOUT_MS).toBe(10_000)
  })
})

describe('toE164', () => {
  it('keeps + and the digits, and refuses what cannot be E.164', () => {
    expect(toE164('+15550100101')).toBe('+15550100101')
    expect(toE164(' +1 (555) 010-0101 ')).toBe('+15550100101')
    expect(toE164('15550100101')).toBeUndefined()
    expect(toE164('+0123')).toBeUndefined()
    expect(toE164('+1234567890123456')).toBeUndefined()
    expect(toE164('+1555abc0101')).toBeUndefined()
  })
})
