/// <reference types="fhir" />
import { describe, expect, it } from 'vitest'
import { NEXTECH_RESOURCE, type NextechResource } from './client.ts'
import {
  createNextechSandbox,
  generateSandboxRecords,
  NEXTECH_SANDBOX,
  type NextechSandbox,
  type NextechSandboxOptions,
  SANDBOX_CLAIMS,
  SANDBOX_PATIENTS,
  SANDBOX_RATE_LIMIT,
  type SandboxClaim,
  sandboxAppointmentResource,
  sandboxClaimResource,
  sandboxPatientResource,
} from './sandbox.ts'

const EXTENSION = 'https://select.nextech-api.com/api/structuredefinition/'

/**
 * A sandbox on clocks the test moves: `now` (token expiry, lastUpdated stamps) frozen unless
 * moved, and the rate clock of the 20-a-second limit.
 */
function harness(options: NextechSandboxOptions = {}) {
  let now = new Date('2026-11-27T10:00:00Z')
  let rate = 0
  const sandbox = createNextechSandbox({ now: () => now, rateClock: () => rate, ...options })
  let token = ''
  const signIn = async () => {
    const response = await sandbox.app.request('/nextech-api.com/oauth2/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: NEXTECH_SANDBOX.clientId,
        username: NEXTECH_SANDBOX.username,
        password: NEXTECH_SANDBOX.password,
        resource: NEXTECH_RESOURCE,
      }).toString(),
    })
    return ((await response.json()) as { access_token: string }).access_token
  }
  /** A request to the API, by path (`/api/Claim?…`) or by a `next` link's full address. */
  const get = async (address: string, headers: Record<string, string> = {}) => {
    token ||= await signIn()
    return sandbox.app.request(address, {
      headers: {
        authorization: `Bearer ${token}`,
        'nx-practice-id': NEXTECH_SANDBOX.practiceId,
        ...headers,
      },
    })
  }
  const bundle = async (address: string): Promise<fhir.Bundle> => {
    const response = await get(address)
    expect(response.status).toBe(200)
    return (await response.json()) as fhir.Bundle
  }
  /** Every resource a search reaches by its `next` links, a second apart on the rate clock. */
  const walk = async (resource: NextechResource, params: Record<string, string> = {}) => {
    const found: fhir.Resource[] = []
    let page = await bundle(`/api/${resource}?${new URLSearchParams(params)}`)
    const total = page.total
    for (;;) {
      found.push(...(page.entry ?? []).flatMap((entry) => (entry.resource ? [entry.resource] : [])))
      const next = page.link?.find((link) => link.relation === 'next')?.url
      if (!next) break
      rate += 1000
      page = await bundle(next)
    }
    return { found, total }
  }
  /** A tester's call under /_sandbox. */
  const tester = async (path: string, body?: unknown) => {
    const response = await sandbox.app.request(`/_sandbox${path}`, {
      method: body === undefined && path === '/patients' ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  return {
    sandbox,
    get,
    bundle,
    walk,
    tester,
    setNow: (at: string) => {
      now = new Date(at)
    },
    advanceRate: (ms: number) => {
      rate += ms
    },
  }
}

const ids = (resources: readonly fhir.Resource[]) => resources.map((resource) => resource.id)

/** The ids the store holds for `resource`, in paging order. */
function storeIds(sandbox: NextechSandbox, resource: NextechResource): string[] {
  const records =
    resource === 'Patient'
      ? sandbox.store.patients()
      : resource === 'Appointment'
        ? sandbox.store.appointments()
        : sandbox.store.claims()
  return records.map((record) => record.id)
}

const small = generateSandboxRecords({ patients: 120, appointments: 230, bills: 340, seed: 7 })

describe('the sandbox serves Patient, Appointment and Claim as Nextech pages them', () => {
  it.each([
    ['Patient', '7'],
    ['Appointment', '50'],
    ['Claim', '13'],
  ] as const)(
    '%s: next links reach every record exactly once (_count=%s)',
    async (resource, count) => {
      const { sandbox, walk } = harness(small)
      const { found, total } = await walk(resource, { _count: count })
      expect(total).toBe(storeIds(sandbox, resource).length)
      expect(ids(found)).toEqual(storeIds(sandbox, resource))
      expect(new Set(ids(found)).size).toBe(found.length)
      expect(found.every((item) => item.resourceType === resource)).toBe(true)
      // In (lastUpdated, id) order.
      const stamps = found.map((item) => Date.parse(item.meta?.lastUpdated ?? ''))
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b))
    },
  )

  it('answers 10 a page by default, 50 at most, with first, previous, next, last and self links', async () => {
    const { bundle } = harness(small)
    const first = await bundle('/api/Claim')
    expect(first.total).toBe(340)
    expect(first.entry).toHaveLength(10)
    const wide = await bundle('/api/Claim?_count=500&page=2')
    expect(wide.entry).toHaveLength(50)
    const relations = Object.fromEntries(
      (wide.link ?? []).map((link) => [link.relation, new URL(link.url).searchParams.get('page')]),
    )
    expect(relations).toEqual({ self: '2', first: '1', previous: '1', next: '3', last: '7' })
    const beyond = await bundle('/api/Claim?_count=50&page=99')
    expect(beyond.entry).toEqual([])
    expect(beyond.link?.find((link) => link.relation === 'next')).toBeUndefined()
  })

  it('filters on _lastUpdated (ge, gt, le, lt, a day alone) as a scan of every record would', async () => {
    const { sandbox, walk, get } = harness(small)
    const claims = sandbox.store.claims()
    const middle = claims[170] as SandboxClaim
    const at = Date.parse(middle.lastUpdated)
    const expected = (keep: (ms: number) => boolean) =>
      claims.filter((claim) => keep(Date.parse(claim.lastUpdated))).map((claim) => claim.id)
    const since = await walk('Claim', { _lastUpdated: `ge${middle.lastUpdated}`, _count: '50' })
    expect(ids(since.found)).toEqual(expected((ms) => ms >= at))
    expect(since.found[0]?.id).toBe(middle.id)
    const after = await walk('Claim', {
      _lastUpdated: `gt${new Date(at).toISOString()}`,
      _count: '50',
    })
    expect(ids(after.found)).toEqual(expected((ms) => ms > at))
    const day = middle.lastUpdated.slice(0, 10)
    const dayStart = Date.parse(`${day}T00:00:00Z`)
    const onTheDay = await walk('Claim', { _lastUpdated: day, _count: '50' })
    expect(ids(onTheDay.found)).toEqual(
      expected((ms) => ms >= dayStart && ms < dayStart + 86_400_000),
    )
    const window = await walk('Claim', {
      _lastUpdated: `ge${day}`,
      _count: '50',
    })
    expect(ids(window.found)).toEqual(expected((ms) => ms >= dayStart))
    const both = await get(
      `/api/Claim?_count=50&_lastUpdated=ge${day}&_lastUpdated=lt${new Date(at).toISOString()}`,
    )
    const bothIds = ((await both.json()) as fhir.Bundle).entry?.map((entry) => entry.resource?.id)
    expect(bothIds).toEqual(expected((ms) => ms >= dayStart && ms < at).slice(0, 50))
    // An offset whose + was not encoded arrives as a space; the sandbox still reads it.
    const spaced = await get(`/api/Claim?_count=50&_lastUpdated=ge${day}T00:00:00 00:00`)
    expect(((await spaced.json()) as fhir.Bundle).total).toBe(
      expected((ms) => ms >= dayStart).length,
    )
    const bad = await get('/api/Claim?_lastUpdated=yesterday')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'invalid' }],
    })
  })

  it('stamps a change later than every record, even on a frozen or earlier clock, so it sorts last', async () => {
    const { sandbox, bundle, setNow } = harness()
    // The clock reads a time before the demo records were last changed.
    setNow('2026-01-01T00:00:00Z')
    const newest = Math.max(
      ...[
        ...sandbox.store.patients(),
        ...sandbox.store.appointments(),
        ...sandbox.store.claims(),
      ].map((record) => Date.parse(record.lastUpdated)),
    )
    const voided = sandbox.store.voidBill('58201')
    const line = sandbox.store.voidLine('58202', 1)
    expect(Date.parse(voided.lastUpdated)).toBe(newest + 1)
    expect(Date.parse(line.lastUpdated)).toBe(newest + 2)
    const claims = await bundle('/api/Claim?_count=50')
    expect(claims.entry?.map((entry) => entry.resource?.id)).toEqual(['58203', '58201', '58202'])
    const since = await bundle(
      `/api/Claim?_lastUpdated=${encodeURIComponent(`ge${new Date(newest + 1).toISOString()}`)}`,
    )
    expect(since.entry?.map((entry) => entry.resource?.id)).toEqual(['58201', '58202'])
    // A moving clock stamps its own time.
    setNow('2026-12-01T08:00:00Z')
    const patient = sandbox.store.updatePatient('20001', { email: 'ana.r@example.com' })
    expect(patient.lastUpdated).toBe('2026-12-01T08:00:00.000+00:00')
    expect(sandbox.store.patients().at(-1)).toEqual(patient)
  })

  it('keeps its records to itself: a change does not touch the records it was given', () => {
    const { sandbox } = harness()
    sandbox.store.voidBill('58201')
    expect(SANDBOX_CLAIMS[0]?.status).toBe('active')
    expect(SANDBOX_CLAIMS[0]?.items.some((item) => item.voided)).toBe(false)
  })

  it('refuses with 429 and Retry-After: 1 past 20 requests a second on one endpoint; another endpoint still answers', async () => {
    const { get, advanceRate, sandbox } = harness()
    for (let i = 0; i < SANDBOX_RATE_LIMIT; i += 1) {
      expect((await get('/api/Patient')).status).toBe(200)
      advanceRate(10)
    }
    const limited = await get('/api/Patient')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('1')
    expect(await limited.json()).toMatchObject({ issue: [{ code: 'throttled' }] })
    // Each endpoint has its own 20 a second.
    expect((await get('/api/Claim')).status).toBe(200)
    expect((await get('/api/Appointment')).status).toBe(200)
    // The first request leaves the last second 1000 ms after it was made (at 0).
    advanceRate(1000 - 10 * SANDBOX_RATE_LIMIT - 1)
    expect((await get('/api/Patient')).status).toBe(429)
    advanceRate(1)
    expect((await get('/api/Patient')).status).toBe(200)
    expect(sandbox.requests.get('Patient')).toBe(SANDBOX_RATE_LIMIT + 3)
    expect(sandbox.requests.get('Claim')).toBe(1)
    expect(sandbox.requests.get('Appointment')).toBe(1)
    expect(sandbox.requests.get('token')).toBe(1)
  })

  it('asks for the token and the practice on Appointment and Claim too', async () => {
    const { sandbox, get } = harness()
    const anonymous = await sandbox.app.request('/api/Claim', {
      headers: { 'nx-practice-id': NEXTECH_SANDBOX.practiceId },
    })
    expect(anonymous.status).toBe(401)
    expect((await get('/api/Appointment', { 'nx-practice-id': '9999' })).status).toBe(403)
    expect((await get('/api/Claim', { 'nx-practice-id': '' })).status).toBe(403)
    expect((await get('/api/Encounter')).status).toBe(404)
  })
})

describe('the resources look like Nextech documents them', () => {
  it('a bill as Nextech answers a Claim: M/D/YYYY dates, item-status, claim-item-identifier, net and total', async () => {
    const { bundle } = harness()
    const claims = await bundle('/api/Claim')
    const bill = claims.entry?.find((entry) => entry.resource?.id === '58202')
    expect(bill?.fullUrl).toBe('http://localhost/api/Claim/58202')
    expect(bill?.resource).toEqual({
      resourceType: 'Claim',
      id: '58202',
      meta: { lastUpdated: '2026-10-30T20:30:00+00:00' },
      identifier: [{ use: 'official', value: '58202' }],
      status: 'active',
      use: 'complete',
      patient: { reference: 'Patient/20002' },
      billablePeriod: { start: '10/30/2026' },
      created: '10/30/2026',
      facility: { reference: 'Location/1' },
      careTeam: [{ sequence: 1, provider: { reference: 'Practitioner/9323' } }],
      item: [
        {
          extension: [
            { url: `${EXTENSION}item-status`, valueString: 'active' },
            {
              url: `${EXTENSION}claim-item-identifier`,
              valueIdentifier: { use: 'official', value: '910003' },
            },
          ],
          sequence: 1,
          careTeamLinkId: [1],
          service: {
            coding: [
              {
                system: 'http://hl7.org/fhir/ValueSet/service-uscls',
                code: 'HYDRA',
                display: 'HydraFacial Signature',
              },
            ],
            text: 'HydraFacial Signature',
          },
          servicedDateTime: '10/30/2026',
          quantity: { value: 1 },
          unitPrice: { value: 199 },
          net: { value: 199 },
        },
        {
          extension: [
            { url: `${EXTENSION}item-status`, valueString: 'cancelled' },
            {
              url: `${EXTENSION}claim-item-identifier`,
              valueIdentifier: { use: 'official', value: '910004' },
            },
          ],
          sequence: 2,
          careTeamLinkId: [1],
          service: {
            coding: [
              {
                system: 'http://hl7.org/fhir/ValueSet/service-uscls',
                code: 'LATISSE',
                display: 'Latisse 5 mL',
              },
            ],
            text: 'Latisse 5 mL',
          },
          servicedDateTime: '10/30/2026',
          quantity: { value: 1 },
          unitPrice: { value: 189.99 },
          net: { value: 189.99 },
        },
      ],
      // The voided line does not count.
      total: { value: 199 },
    })
  })

  it('a quote is a Claim with use exploratory; a per-unit line nets quantity × price', () => {
    const [botox, , quote] = SANDBOX_CLAIMS
    expect(sandboxClaimResource(quote as SandboxClaim)).toMatchObject({
      use: 'exploratory',
      status: 'active',
      created: '11/3/2026',
      total: { value: 1450 },
    })
    const resource = sandboxClaimResource(botox as SandboxClaim)
    expect(resource.item?.[0]).toMatchObject({
      quantity: { value: 20 },
      unitPrice: { value: 13 },
      net: { value: 260 },
    })
    expect(resource.total).toEqual({ value: 442 })
  })

  it('an appointment as Nextech answers it: status, start, end, participants, appointment-type', () => {
    const [ana] = SANDBOX_PATIENTS
    const { sandbox } = harness()
    const appointment = sandbox.store.appointment('41001')
    if (!appointment) throw new Error('the demo appointment is missing')
    expect(sandboxAppointmentResource(appointment, ana)).toEqual({
      resourceType: 'Appointment',
      id: '41001',
      meta: { lastUpdated: '2026-10-28T16:05:00+00:00' },
      extension: [
        {
          url: `${EXTENSION}appointment-type`,
          valueReference: { reference: 'appointment-type/12', display: 'Injectables' },
        },
      ],
      identifier: [{ use: 'official', value: '41001' }],
      status: 'fulfilled',
      description: 'Injectables for Avery Johnson',
      start: '2026-10-28T10:00:00-05:00',
      end: '2026-10-28T10:30:00-05:00',
      participant: [
        { actor: { reference: 'Patient/20001', display: 'Johnson, Avery' } },
        { actor: { reference: 'Location/1', display: 'Glow Demo Aesthetics' } },
        { actor: { reference: 'Practitioner/9323', display: 'Walters, Sherri' } },
      ],
    })
  })

  it('a patient names who referred them (referring-patient) and their patient-status', async () => {
    const { bundle, sandbox } = harness()
    const patients = await bundle('/api/Patient')
    const grace = patients.entry?.find((entry) => entry.resource?.id === '20002')?.resource
    expect((grace as fhir.Patient).extension).toEqual([
      {
        url: `${EXTENSION}referring-patient`,
        valueReference: { reference: 'patient/20001', display: 'Johnson, Avery' },
      },
      { url: `${EXTENSION}patient-status`, valueString: 'patient' },
      { url: `${EXTENSION}exclude-from-mailings`, valueBoolean: false },
    ])
    const prospect = sandbox.store.addPatient({ family: 'Lane', given: 'Mia', status: 'prospect' })
    expect(sandboxPatientResource(prospect).extension).toContainEqual({
      url: `${EXTENSION}patient-status`,
      valueString: 'prospect',
    })
  })
})

describe('voiding and correcting bills, as Nextech documents them', () => {
  it('a voided bill is cancelled, its lines too, and the next search since the last sync finds it', async () => {
    const { sandbox, bundle } = harness()
    const before = await bundle('/api/Claim')
    const newest = before.entry?.at(-1)?.resource?.meta?.lastUpdated ?? ''
    sandbox.store.voidBill('58201')
    const since = await bundle(`/api/Claim?_lastUpdated=${encodeURIComponent(`gt${newest}`)}`)
    expect(since.total).toBe(1)
    const voided = since.entry?.[0]?.resource as fhir.Claim
    expect(voided).toMatchObject({ id: '58201', status: 'cancelled', use: 'complete' })
    expect(voided.item?.map((item) => item.extension?.[0])).toEqual([
      { url: `${EXTENSION}item-status`, valueString: 'cancelled' },
      { url: `${EXTENSION}item-status`, valueString: 'cancelled' },
    ])
    expect(() => sandbox.store.voidBill('58201')).toThrow('Bill 58201 is void already.')
  })

  it('a voided line turns cancelled while the bill stays active', () => {
    const { sandbox } = harness()
    const bill = sandbox.store.voidLine('58201', 2)
    expect(bill.status).toBe('active')
    const resource = sandboxClaimResource(bill)
    expect(resource.item?.map((item) => item.extension?.[0]?.valueString)).toEqual([
      'active',
      'cancelled',
    ])
    expect(resource.total).toEqual({ value: 260 })
    expect(() => sandbox.store.voidLine('58201', 2)).toThrow(
      'Line 2 of bill 58201 is void already.',
    )
    expect(() => sandbox.store.voidLine('58201', 7)).toThrow('Bill 58201 has no line 7.')
  })

  it('a corrected bill: the original cancelled, a new active bill for the same patient and day with new line ids', async () => {
    const { sandbox, bundle } = harness()
    const replacement = sandbox.store.correctBill('58201', [
      { code: '64612', text: 'Botox Cosmetic, per unit', quantity: 24, unitPrice: 13 },
    ])
    expect(replacement).toMatchObject({
      patientId: '20001',
      use: 'complete',
      status: 'active',
      created: '2026-10-28T10:30:00-05:00',
      items: [{ sequence: 1, quantity: 24, unitPrice: 13 }],
    })
    expect(replacement.id).not.toBe('58201')
    expect(sandbox.store.claim('58201')?.status).toBe('cancelled')
    const claims = await bundle('/api/Claim?_count=50')
    // The original sorts just before its replacement, both after every other bill.
    expect(claims.entry?.slice(-2).map((entry) => entry.resource?.id)).toEqual([
      '58201',
      replacement.id,
    ])
    const identifiers = sandbox.store
      .claims()
      .flatMap((claim) => claim.items.map((item) => item.identifier))
    expect(new Set(identifiers).size).toBe(identifiers.length)
    expect(() => sandbox.store.correctBill('58201', [])).toThrow('Bill 58201 is void')
    expect(() =>
      sandbox.store.correctBill('58203', [{ code: 'JUVUP', text: 'Juvederm', unitPrice: 725 }]),
    ).toThrow('58203 is a quote, not a bill')
  })

  it('new bills get unique ids and line identifiers', () => {
    const { sandbox } = harness(small)
    const first = sandbox.store.addBill({
      patientId: '100001',
      items: [
        { code: 'HYDRA', text: 'HydraFacial Signature', unitPrice: 199 },
        { code: 'LATISSE', text: 'Latisse 5 mL', quantity: 2, unitPrice: 189.99 },
      ],
    })
    const second = sandbox.store.addBill({
      patientId: '100002',
      use: 'exploratory',
      created: '2026-11-20T10:00:00-06:00',
      items: [{ code: 'BTX20', text: 'Botox Cosmetic 20 units', unitPrice: 240 }],
    })
    expect(first.id).not.toBe(second.id)
    expect(sandbox.store.claims().filter((claim) => claim.id === first.id)).toHaveLength(1)
    expect(sandboxClaimResource(first).total).toEqual({ value: 578.98 })
    expect(sandboxClaimResource(second)).toMatchObject({
      use: 'exploratory',
      created: '11/20/2026',
    })
    const identifiers = sandbox.store
      .claims()
      .flatMap((claim) => claim.items.map((item) => item.identifier))
    expect(new Set(identifiers).size).toBe(identifiers.length)
  })
})

describe('the tester endpoints under /_sandbox', () => {
  it('list the patients and add one', async () => {
    const { tester, sandbox } = harness()
    const listed = await sandbox.app.request('/_sandbox/patients')
    expect(((await listed.json()) as unknown[]).length).toBe(3)
    const added = await tester('/patients', {
      family: 'Lane',
      given: 'Mia',
      email: 'mia.lane@example.com',
      referringPatientId: '20001',
    })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ id: '20004', family: 'Lane', referringPatientId: '20001' })
    const refused = await tester('/patients', { family: 'Lane', referringPatientId: '99999' })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe('given is required: text, like Ana.')
  })

  it('add a bill, void a line, void a bill and correct one, answering the record', async () => {
    const { tester } = harness()
    const bill = await tester('/bills', {
      patientId: '20001',
      items: [
        { code: 'BTX20', text: 'Botox Cosmetic 20 units', unitPrice: 240 },
        { code: 'SKCEF', text: 'SkinCeuticals C E Ferulic 1 oz', unitPrice: 182 },
      ],
    })
    expect(bill.status).toBe(201)
    expect(bill.body).toMatchObject({ patientId: '20001', use: 'complete', status: 'active' })
    const id = String(bill.body.id)
    const line = await tester(`/bills/${id}/lines/2/void`)
    expect(line.status).toBe(200)
    expect(line.body.items).toMatchObject([{ sequence: 1 }, { sequence: 2, voided: true }])
    const corrected = await tester(`/bills/${id}/correct`, {
      items: [{ code: 'BTX20', text: 'Botox Cosmetic 20 units', quantity: 2, unitPrice: 240 }],
    })
    expect(corrected.status).toBe(201)
    expect(corrected.body).toMatchObject({ patientId: '20001', status: 'active' })
    const voided = await tester(`/bills/${String(corrected.body.id)}/void`)
    expect(voided.body).toMatchObject({ status: 'cancelled' })
  })

  it('refuse bad input with 400 and a message, an unknown bill with 404', async () => {
    const { tester } = harness()
    const cases: [string, unknown, number, string][] = [
      ['/bills', { patientId: '20001' }, 400, 'items is required'],
      [
        '/bills',
        { patientId: '424242', items: [{ code: 'X', text: 'X', unitPrice: 1 }] },
        400,
        'patientId 424242 is no patient of the sandbox',
      ],
      [
        '/bills',
        { patientId: '20001', items: [{ code: 'HYDRA', text: 'HydraFacial', unitPrice: 19.999 }] },
        400,
        'Line 1: unitPrice must be the price in dollars with at most 2 decimals',
      ],
      [
        '/bills',
        {
          patientId: '20001',
          items: [{ code: 'HYDRA', text: 'HydraFacial', unitPrice: 199, quantity: 0 }],
        },
        400,
        'Line 1: quantity must be a number above 0',
      ],
      [
        '/bills',
        { patientId: '20001', items: [{ text: 'HydraFacial', unitPrice: 199 }] },
        400,
        'Line 1: code is required',
      ],
      ['/bills', 'not json', 400, 'The body must be JSON'],
      ['/bills', [1, 2], 400, 'The body must be a JSON object.'],
      ['/bills/99999/void', undefined, 404, 'The sandbox has no bill or quote 99999.'],
      ['/bills/58201/lines/first/void', undefined, 400, '"first" is no line number'],
      ['/bills/58201/lines/9/void', undefined, 404, 'Bill 58201 has no line 9.'],
      ['/bills/58201/correct', { items: 'HYDRA' }, 400, 'items is required'],
      [
        '/bills/58203/correct',
        { items: [{ code: 'JUVUP', text: 'Juvederm', unitPrice: 725 }] },
        400,
        'a quote, not a bill',
      ],
    ]
    for (const [path, body, status, message] of cases) {
      const answer = await tester(path, body)
      expect({ path, status: answer.status }).toEqual({ path, status })
      expect(String(answer.body.message)).toContain(message)
    }
  })

  it('are reached through the mounted path by the in-process fetch, with no token', async () => {
    const { sandbox } = harness()
    const response = await sandbox.fetch(
      `http://localhost:3000${NEXTECH_SANDBOX.mountPath}/_sandbox/bills/58202/void`,
      { method: 'POST' },
    )
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ id: '58202', status: 'cancelled' })
  })
})

describe('generated records', () => {
  it('are the same for the same seed, different for another', () => {
    const counts = { patients: 200, appointments: 300, bills: 500 }
    expect(generateSandboxRecords({ ...counts, seed: 3 })).toEqual(
      generateSandboxRecords({ ...counts, seed: 3 }),
    )
    expect(generateSandboxRecords({ ...counts, seed: 4 })).not.toEqual(
      generateSandboxRecords({ ...counts, seed: 3 }),
    )
  })

  it('look like a practice: unique e-mails and ids, fictional phones, about 5% quotes and 3% cancelled, 1–3 lines', () => {
    const until = '2026-11-01T00:00:00.000Z'
    const { patients, appointments, claims } = generateSandboxRecords({
      patients: 2000,
      appointments: 3000,
      bills: 6000,
      seed: 11,
      until,
    })
    expect([patients.length, appointments.length, claims.length]).toEqual([2000, 3000, 6000])
    const emails = patients.flatMap((patient) => (patient.email ? [patient.email] : []))
    expect(new Set(emails).size).toBe(emails.length)
    expect(emails.length).toBeGreaterThan(1600)
    expect(emails.every((email) => /^[a-z]+\.[a-z]+\.\d+@example\.com$/.test(email))).toBe(true)
    const phones = patients.flatMap((patient) => (patient.phone ? [patient.phone] : []))
    expect(phones.every((phone) => /^\(\d{3}\) 555-01\d{2}$/.test(phone))).toBe(true)
    const patientIds = new Set(patients.map((patient) => patient.id))
    expect(patientIds.size).toBe(2000)
    expect(appointments.every((appointment) => patientIds.has(appointment.patientId))).toBe(true)
    expect(claims.every((claim) => patientIds.has(claim.patientId))).toBe(true)
    expect(
      patients.every(
        (patient) => !patient.referringPatientId || patientIds.has(patient.referringPatientId),
      ),
    ).toBe(true)
    const share = (count: number) => count / claims.length
    expect(share(claims.filter((claim) => claim.use === 'exploratory').length)).toBeCloseTo(0.05, 1)
    expect(share(claims.filter((claim) => claim.status === 'cancelled').length)).toBeCloseTo(
      0.03,
      1,
    )
    expect(claims.every((claim) => claim.items.length >= 1 && claim.items.length <= 3)).toBe(true)
    const lineIds = claims.flatMap((claim) => claim.items.map((item) => item.identifier))
    expect(new Set(lineIds).size).toBe(lineIds.length)
    const end = Date.parse(until)
    const stamps = [...patients, ...appointments, ...claims].map((record) =>
      Date.parse(record.lastUpdated),
    )
    expect(stamps.every((ms) => ms <= end && ms >= end - 365 * 86_400_000)).toBe(true)
  })

  it('at the bench size (10,000 / 20,000 / 50,000) load into a sandbox that pages from anywhere', async () => {
    const records = generateSandboxRecords({
      patients: 10_000,
      appointments: 20_000,
      bills: 50_000,
      seed: 1,
    })
    const { bundle, sandbox } = harness(records)
    const claims = sandbox.store.claims()
    const from = claims[49_990] as SandboxClaim
    const tail = await bundle(
      `/api/Claim?_count=50&_lastUpdated=${encodeURIComponent(`ge${from.lastUpdated}`)}`,
    )
    const expected = claims
      .filter((claim) => Date.parse(claim.lastUpdated) >= Date.parse(from.lastUpdated))
      .map((claim) => claim.id)
    expect(tail.total).toBe(expected.length)
    expect(tail.entry?.map((entry) => entry.resource?.id)).toEqual(expected)
    const last = await bundle('/api/Appointment?_count=50&page=400')
    expect(last.entry?.map((entry) => entry.resource?.id)).toEqual(
      sandbox.store
        .appointments()
        .slice(19_950)
        .map((appointment) => appointment.id),
    )
  })
})
