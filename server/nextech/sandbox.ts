/// <reference types="fhir" />
import { randomBytes } from 'node:crypto'
import { type Context, Hono } from 'hono'
import { NEXTECH_SANDBOX_LOGIN } from '#domain/nextech.ts'
import { NEXTECH_RESOURCE } from './client.ts'

/**
 * The Nextech sandbox: a small stand-in for Nextech's sign-in (Azure AD's token endpoint) and
 * FHIR STU3 API, served outside production under `/nextech-sandbox` and used by the tests, as
 * the test payment gateway stands in for Stripe. It behaves as Nextech documents
 * (NextechSystems/selectapidocspub, "Getting started", "Patient", "Appointment", "Claim"): the
 * password and refresh grants with Azure AD's error answers (`error`, `error_description`,
 * `error_codes` with AADSTS numbers, `expires_in` as a string of seconds), tokens for 1 hour and
 * refresh tokens for 14 days, `nx-practice-id` on every API call, Bundles of 10 (at most 50 with
 * `_count`) with `next` links, `_lastUpdated=ge…`, and 20 requests a second per endpoint per
 * user, then 429 with `Retry-After`. Nextech does not document its answer to a practice ID the
 * user may not use; the sandbox answers 403 with an OperationOutcome.
 *
 * It serves Patient, Appointment and Claim (Nextech's bills and quotes) from a store a tester or
 * a test changes: add a patient or a bill, void a bill or one of its lines, correct a bill (the
 * old one cancelled, a new one in its place, as Nextech documents a corrected closed bill). Every
 * change stamps `meta.lastUpdated`, so a sync that asks `_lastUpdated=ge…` sees it. A tester
 * makes those changes over HTTP under `/nextech-sandbox/_sandbox/…` (not Nextech's API: no
 * token) or with `scripts/nextech-sandbox.ts`.
 */

/** The sandbox's API users and practice. */
export const NEXTECH_SANDBOX = {
  clientId: NEXTECH_SANDBOX_LOGIN.client_id,
  username: NEXTECH_SANDBOX_LOGIN.username,
  password: NEXTECH_SANDBOX_LOGIN.password,
  practiceId: NEXTECH_SANDBOX_LOGIN.nx_practice_id,
  /** An API user never signed in: its first password has expired, as Nextech's new users' do. */
  newUser: { username: 'new.api@demo-clinic.nextech-api.com', password: 'Welcome123!' },
  /** Where the sandbox is mounted on a server outside production. */
  mountPath: '/nextech-sandbox',
} as const

/** Requests a second per endpoint per user before 429 (Nextech's documented default). */
export const SANDBOX_RATE_LIMIT = 20

const ACCESS_SECONDS = 3600
const REFRESH_SECONDS = 14 * 24 * 3600
const NEXTECH_EXTENSION = 'https://select.nextech-api.com/api/structuredefinition/'
/** The coding system of a bill line's service in Nextech's Claim example. */
const SERVICE_SYSTEM = 'http://hl7.org/fhir/ValueSet/service-uscls'
/** The sandbox practice's one location and provider, named on its appointments and bills. */
const LOCATION = { reference: 'Location/1', display: 'Glow Demo Aesthetics' }
const PRACTITIONER = { reference: 'Practitioner/9323', display: 'Walters, Sherri' }
const HOUR = 3600_000
const DAY = 24 * HOUR

type SandboxUser = { password: string; clientId: string; practices: string[]; expired?: boolean }

type Grant = { username: string; expiresAt: number }

/** A sandbox patient: what the sandbox answers as a FHIR Patient. */
export type SandboxPatient = {
  id: string
  family: string
  given: string
  phone?: string
  email?: string
  birthDate?: string
  excludeFromMailings?: boolean
  /** The patient who referred this one (Nextech's `referring-patient` extension). */
  referringPatientId?: string
  /** Nextech's `patient-status`; a patient when absent. */
  status?: 'patient' | 'prospect'
  lastUpdated: string
}

/** The appointment statuses Nextech answers (FHIR's, those Select has a counterpart for). */
export const SANDBOX_APPOINTMENT_STATUSES = [
  'proposed',
  'pending',
  'booked',
  'arrived',
  'fulfilled',
  'cancelled',
  'noshow',
] as const

/** A sandbox appointment: what the sandbox answers as a FHIR Appointment. */
export type SandboxAppointment = {
  id: string
  patientId: string
  status: (typeof SANDBOX_APPOINTMENT_STATUSES)[number]
  /** ISO date-time with the practice's offset, as Nextech writes it. */
  start: string
  end: string
  /** The appointment type's name in Select (`appointment-type` extension). */
  type?: string
  lastUpdated: string
}

/** One line (a charge) of a sandbox bill; its net is quantity × unit price. */
export type SandboxClaimItem = {
  sequence: number
  /** Nextech's `claim-item-identifier`: the charge's own id, unique in the practice. */
  identifier: string
  /** The service code in Select, like '64612', 'HYDRA' or 'BTX20'. */
  code: string
  text: string
  quantity: number
  /** Dollars, 2 decimals. */
  unitPrice: number
  voided?: boolean
}

/** A sandbox bill (`use` complete) or quote (`exploratory`): what it answers as a FHIR Claim. */
export type SandboxClaim = {
  id: string
  patientId: string
  use: 'complete' | 'exploratory'
  /** `cancelled` once voided, or once a correction replaced it. */
  status: 'active' | 'cancelled'
  /** When the services were performed (ISO date-time); answered as Nextech does, `6/13/2018`. */
  created: string
  items: SandboxClaimItem[]
  lastUpdated: string
}

/** The resources the sandbox serves, and the record behind each. */
export type SandboxRecordOf = {
  Patient: SandboxPatient
  Appointment: SandboxAppointment
  Claim: SandboxClaim
}
export type SandboxResource = keyof SandboxRecordOf

/**
 * The demo practice's patients in Nextech: three of the Glow demo practice's own people, with the
 * same e-mails and phones, so the first sync links them instead of adding them again.
 */
export const SANDBOX_PATIENTS: readonly SandboxPatient[] = [
  {
    id: '20001',
    family: 'Johnson',
    given: 'Avery',
    phone: '(555) 010-1001',
    email: 'avery.johnson@example.com',
    birthDate: '1988-04-12',
    lastUpdated: '2026-11-01T15:00:00+00:00',
  },
  {
    id: '20002',
    family: 'Martinez',
    given: 'Blake',
    phone: '(555) 010-1002',
    email: 'blake.martinez@example.com',
    birthDate: '1979-09-30',
    referringPatientId: '20001',
    lastUpdated: '2026-11-02T09:30:00+00:00',
  },
  {
    id: '20003',
    family: 'Nguyen',
    given: 'Casey',
    phone: '(555) 010-1003',
    email: 'casey.nguyen@example.com',
    lastUpdated: '2026-11-03T11:15:00+00:00',
  },
]

/** The demo patients' appointments: two visits done, one booked, one cancelled. */
export const SANDBOX_APPOINTMENTS: readonly SandboxAppointment[] = [
  {
    id: '41001',
    patientId: '20001',
    status: 'fulfilled',
    start: '2026-10-28T10:00:00-05:00',
    end: '2026-10-28T10:30:00-05:00',
    type: 'Injectables',
    lastUpdated: '2026-10-28T16:05:00+00:00',
  },
  {
    id: '41002',
    patientId: '20002',
    status: 'fulfilled',
    start: '2026-10-30T14:00:00-05:00',
    end: '2026-10-30T15:00:00-05:00',
    type: 'Skin Care Established',
    lastUpdated: '2026-10-30T20:10:00+00:00',
  },
  {
    id: '41003',
    patientId: '20003',
    status: 'cancelled',
    start: '2026-11-05T11:00:00-06:00',
    end: '2026-11-05T11:45:00-06:00',
    type: 'Consult Cosmetic',
    lastUpdated: '2026-11-03T11:20:00+00:00',
  },
  {
    id: '41004',
    patientId: '20001',
    status: 'booked',
    start: '2026-12-09T09:00:00-06:00',
    end: '2026-12-09T09:30:00-06:00',
    type: 'Injectables',
    lastUpdated: '2026-11-04T14:00:00+00:00',
  },
]

/** The demo patients' bills: Botox and a retail product, a HydraFacial with a voided line, a quote. */
export const SANDBOX_CLAIMS: readonly SandboxClaim[] = [
  {
    id: '58201',
    patientId: '20001',
    use: 'complete',
    status: 'active',
    created: '2026-10-28T10:30:00-05:00',
    items: [
      {
        sequence: 1,
        identifier: '910001',
        code: '64612',
        text: 'Botox Cosmetic, per unit',
        quantity: 20,
        unitPrice: 13,
      },
      {
        sequence: 2,
        identifier: '910002',
        code: 'SKCEF',
        text: 'SkinCeuticals C E Ferulic 1 oz',
        quantity: 1,
        unitPrice: 182,
      },
    ],
    lastUpdated: '2026-10-28T16:10:00+00:00',
  },
  {
    id: '58202',
    patientId: '20002',
    use: 'complete',
    status: 'active',
    created: '2026-10-30T15:00:00-05:00',
    items: [
      {
        sequence: 1,
        identifier: '910003',
        code: 'HYDRA',
        text: 'HydraFacial Signature',
        quantity: 1,
        unitPrice: 199,
      },
      {
        sequence: 2,
        identifier: '910004',
        code: 'LATISSE',
        text: 'Latisse 5 mL',
        quantity: 1,
        unitPrice: 189.99,
        voided: true,
      },
    ],
    lastUpdated: '2026-10-30T20:30:00+00:00',
  },
  {
    id: '58203',
    patientId: '20003',
    use: 'exploratory',
    status: 'active',
    created: '2026-11-03T11:00:00-06:00',
    items: [
      {
        sequence: 1,
        identifier: '910005',
        code: 'JUVUP',
        text: 'Juvederm Ultra Plus XC 1 mL',
        quantity: 2,
        unitPrice: 725,
      },
    ],
    lastUpdated: '2026-11-03T12:00:00+00:00',
  },
]

/**
 * What an aesthetic practice sells, by its service codes in Select: what the generator bills and
 * what the tester's script fills in when only a code is given. `units` is the usual range of a
 * per-unit service.
 */
export const SANDBOX_SERVICES: readonly {
  code: string
  text: string
  unitPrice: number
  units?: readonly [number, number]
}[] = [
  { code: '64612', text: 'Botox Cosmetic, per unit', unitPrice: 13, units: [20, 64] },
  { code: 'BTX20', text: 'Botox Cosmetic 20 units', unitPrice: 240 },
  { code: 'DYS50', text: 'Dysport 50 units', unitPrice: 200 },
  { code: 'JUVUP', text: 'Juvederm Ultra Plus XC 1 mL', unitPrice: 725 },
  { code: 'RESLYF', text: 'Restylane Lyft 1 mL', unitPrice: 695 },
  { code: 'KYB', text: 'Kybella, per vial', unitPrice: 600, units: [1, 4] },
  { code: 'HYDRA', text: 'HydraFacial Signature', unitPrice: 199 },
  { code: 'HYDRADLX', text: 'HydraFacial Deluxe', unitPrice: 249 },
  { code: 'VIPEEL', text: 'VI Peel', unitPrice: 350 },
  { code: 'MNPRP', text: 'Microneedling with PRP', unitPrice: 650 },
  { code: 'IPL', text: 'IPL Photofacial', unitPrice: 400 },
  { code: 'LHRSM', text: 'Laser Hair Removal, small area', unitPrice: 150 },
  { code: 'EMSC', text: 'Emsculpt NEO session', unitPrice: 750 },
  { code: '99203', text: 'New patient consultation', unitPrice: 150 },
  { code: 'SKCEF', text: 'SkinCeuticals C E Ferulic 1 oz', unitPrice: 182 },
  { code: 'LATISSE', text: 'Latisse 5 mL', unitPrice: 189.99 },
  { code: 'EMSPF', text: 'EltaMD UV Clear SPF 46', unitPrice: 41.5 },
]

/** Appointment types in Select and their ids (`appointment-type/{id}`). */
const APPOINTMENT_TYPES: Readonly<Record<string, number>> = {
  'Consult Cosmetic': 3,
  'Surgery Cosmetic': 9,
  Injectables: 12,
  'Follow-up': 14,
  'Skin Care Established': 25,
  'Laser Treatment': 31,
}

/** A type the table above does not know gets a stable id from its name. */
function appointmentTypeId(name: string): number {
  const known = APPOINTMENT_TYPES[name]
  if (known !== undefined) return known
  let hash = 0
  for (const char of name) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % 9000
  return 1000 + hash
}

/** An instant as Nextech writes `meta.lastUpdated`: `2018-01-25T13:23:00.550+00:00`. */
function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00')
}

/** The date of an ISO date-time as written (the practice's day), the way Nextech's Claim shows it. */
function nextechDay(isoDateTime: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoDateTime)
  if (!match) return isoDateTime
  return `${Number(match[2])}/${Number(match[3])}/${match[1]}`
}

/** "Rivera, Ana": how Nextech names a patient in a reference's `display`. */
function displayName(patient: SandboxPatient): string {
  return `${patient.family}, ${patient.given}`
}

/** A line's net in cents: quantity × unit price, without float drift. */
function netCents(item: Pick<SandboxClaimItem, 'quantity' | 'unitPrice'>): number {
  return Math.round(item.quantity * Math.round(item.unitPrice * 100))
}

/** The FHIR Patient Nextech answers for `patient`; `referrer` names who referred them. */
export function sandboxPatientResource(
  patient: SandboxPatient,
  referrer?: SandboxPatient,
): fhir.Patient {
  const telecom: fhir.ContactPoint[] = []
  if (patient.phone) telecom.push({ system: 'phone', value: patient.phone, use: 'mobile' })
  if (patient.email) telecom.push({ system: 'email', value: patient.email })
  const extension: fhir.Extension[] = []
  if (patient.referringPatientId) {
    // Nextech writes this reference in lower case (its Patient example).
    extension.push({
      url: `${NEXTECH_EXTENSION}referring-patient`,
      valueReference: {
        reference: `patient/${patient.referringPatientId}`,
        ...(referrer ? { display: displayName(referrer) } : {}),
      },
    })
  }
  extension.push(
    { url: `${NEXTECH_EXTENSION}patient-status`, valueString: patient.status ?? 'patient' },
    {
      url: `${NEXTECH_EXTENSION}exclude-from-mailings`,
      valueBoolean: patient.excludeFromMailings ?? false,
    },
  )
  return {
    resourceType: 'Patient',
    id: patient.id,
    meta: { lastUpdated: patient.lastUpdated },
    identifier: [{ use: 'usual', value: patient.id }],
    name: [{ use: 'official', family: patient.family, given: [patient.given] }],
    ...(telecom.length > 0 ? { telecom } : {}),
    ...(patient.birthDate ? { birthDate: patient.birthDate } : {}),
    extension,
  }
}

/**
 * The FHIR Appointment Nextech answers for `appointment` (its Appointment sample): the type as the
 * `appointment-type` extension, the patient, location and provider as participants.
 */
export function sandboxAppointmentResource(
  appointment: SandboxAppointment,
  patient?: SandboxPatient,
): fhir.Appointment {
  // Nextech's participants carry no `status`, which FHIR STU3's types ask for.
  const participant = [
    {
      actor: {
        reference: `Patient/${appointment.patientId}`,
        ...(patient ? { display: displayName(patient) } : {}),
      },
    },
    { actor: LOCATION },
    { actor: PRACTITIONER },
  ] as fhir.AppointmentParticipant[]
  return {
    resourceType: 'Appointment',
    id: appointment.id,
    meta: { lastUpdated: appointment.lastUpdated },
    ...(appointment.type
      ? {
          extension: [
            {
              url: `${NEXTECH_EXTENSION}appointment-type`,
              valueReference: {
                reference: `appointment-type/${appointmentTypeId(appointment.type)}`,
                display: appointment.type,
              },
            },
          ],
        }
      : {}),
    identifier: [{ use: 'official', value: appointment.id }],
    status: appointment.status,
    description: [
      appointment.type ?? 'Appointment',
      patient && `for ${patient.given} ${patient.family}`,
    ]
      .filter(Boolean)
      .join(' '),
    start: appointment.start,
    end: appointment.end,
    participant,
  }
}

/**
 * The FHIR Claim Nextech answers for `claim` (its Claim example): dates written `6/13/2018`,
 * each line's `item-status` (`active`, or `cancelled` once voided) and `claim-item-identifier`,
 * the service as a coding with its text, quantity, unit price and net; `total` adds the lines
 * not voided.
 */
export function sandboxClaimResource(claim: SandboxClaim): fhir.Claim {
  const day = nextechDay(claim.created)
  // Nextech writes `servicedDateTime` on a line, which FHIR STU3's types do not have.
  const item: (fhir.ClaimItem & { servicedDateTime: string })[] = claim.items.map((line) => ({
    extension: [
      {
        url: `${NEXTECH_EXTENSION}item-status`,
        valueString: line.voided ? 'cancelled' : 'active',
      },
      {
        url: `${NEXTECH_EXTENSION}claim-item-identifier`,
        valueIdentifier: { use: 'official', value: line.identifier },
      },
    ],
    sequence: line.sequence,
    careTeamLinkId: [1],
    service: {
      coding: [{ system: SERVICE_SYSTEM, code: line.code, display: line.text }],
      text: line.text,
    },
    servicedDateTime: day,
    quantity: { value: line.quantity },
    unitPrice: { value: line.unitPrice },
    net: { value: netCents(line) / 100 },
  }))
  const total = claim.items.reduce((sum, line) => (line.voided ? sum : sum + netCents(line)), 0)
  return {
    resourceType: 'Claim',
    id: claim.id,
    meta: { lastUpdated: claim.lastUpdated },
    identifier: [{ use: 'official', value: claim.id }],
    status: claim.status,
    use: claim.use,
    patient: { reference: `Patient/${claim.patientId}` },
    billablePeriod: { start: day },
    created: day,
    facility: { reference: LOCATION.reference },
    careTeam: [{ sequence: 1, provider: { reference: PRACTITIONER.reference } }],
    item,
    total: { value: total / 100 },
  }
}

/** Azure AD's error answer: 400 with its fields, the description starting with the number. */
function aadError(error: string, code: number, text: string) {
  const timestamp = new Date().toISOString().replace('T', ' ').slice(0, 19)
  const trace = randomBytes(16).toString('hex')
  return {
    error,
    error_description: `AADSTS${code}: ${text}\r\nTrace ID: ${trace}\r\nTimestamp: ${timestamp}Z`,
    error_codes: [code],
    timestamp: `${timestamp}Z`,
    trace_id: trace,
    correlation_id: randomBytes(16).toString('hex'),
    error_uri: `https://login.microsoftonline.com/error?code=${code}`,
  }
}

function outcome(code: string, text: string): fhir.OperationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'error', code, diagnostics: text }],
  }
}

/** Input the sandbox's store refuses (400), or a record it does not have (404), in words. */
export class SandboxInputError extends Error {
  readonly status: 400 | 404
  constructor(message: string, status: 400 | 404 = 400) {
    super(message)
    this.name = 'SandboxInputError'
    this.status = status
  }
}

type Entry<T> = { ms: number; id: string; record: T }

/**
 * One resource's records in Nextech's paging order, (lastUpdated, id), with a lookup by id. A
 * search finds where `_lastUpdated=ge…` starts by binary search and slices its page, so a request
 * costs O(log n + page size) however many records there are; a change moves one record.
 */
function sortedRecords<T extends { id: string; lastUpdated: string }>(
  what: string,
  records: readonly T[],
) {
  const msOf = (record: T) => {
    const ms = Date.parse(record.lastUpdated)
    if (Number.isNaN(ms)) {
      throw new SandboxInputError(
        `The sandbox ${what} ${record.id} has no valid lastUpdated ("${record.lastUpdated}").`,
      )
    }
    return ms
  }
  const byId = new Map<string, Entry<T>>()
  const order: Entry<T>[] = []
  for (const record of records) {
    if (byId.has(record.id)) {
      throw new SandboxInputError(`Two sandbox ${what}s have the id ${record.id}.`)
    }
    const entry = { ms: msOf(record), id: record.id, record }
    byId.set(record.id, entry)
    order.push(entry)
  }
  order.sort((a, b) => a.ms - b.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

  /** The position of the first record at or after (ms, id). */
  const lowerBound = (ms: number, id = '') => {
    let low = 0
    let high = order.length
    while (low < high) {
      const middle = (low + high) >>> 1
      const entry = order[middle] as Entry<T>
      if (entry.ms < ms || (entry.ms === ms && entry.id < id)) low = middle + 1
      else high = middle
    }
    return low
  }

  return {
    get: (id: string): T | undefined => byId.get(id)?.record,
    has: (id: string) => byId.has(id),
    /** Adds `record`, or puts it in place of the one with its id, where its lastUpdated sorts. */
    put(record: T): T {
      const old = byId.get(record.id)
      if (old) order.splice(lowerBound(old.ms, old.id), 1)
      const entry = { ms: msOf(record), id: record.id, record }
      order.splice(lowerBound(entry.ms, entry.id), 0, entry)
      byId.set(record.id, entry)
      return record
    },
    lowerBound,
    slice: (start: number, end: number): T[] => order.slice(start, end).map((e) => e.record),
    size: () => order.length,
    list: (): T[] => order.map((entry) => entry.record),
    lastMs: () => order.at(-1)?.ms ?? Number.NEGATIVE_INFINITY,
    ids: () => byId.keys(),
  }
}

type SortedRecords<T extends { id: string; lastUpdated: string }> = ReturnType<
  typeof sortedRecords<T>
>

/** A function handing out numeric ids above every numeric one in `ids` (and at least `floor`). */
function idCounter(ids: Iterable<string>, floor: number): () => string {
  let next = floor
  for (const id of ids) {
    const number = Number(id)
    if (Number.isSafeInteger(number) && number >= next) next = number + 1
  }
  return () => String(next++)
}

function fail(message: string, status: 400 | 404 = 400): never {
  throw new SandboxInputError(message, status)
}

function requiredText(value: unknown, field: string, example: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    fail(`${field} is required: text, like ${example}.`)
  }
  return value.trim()
}

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') fail(`${field} must be text.`)
  return value.trim() || undefined
}

/** A valid calendar date written YYYY-MM-DD. */
function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  return new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value
}

/** What a bill line is given as: its net is quantity (1 when absent) × unit price in dollars. */
export type SandboxBillLineInput = {
  code: string
  text: string
  quantity?: number
  unitPrice: number
}

/** A new bill (or quote, `use` exploratory): `created` is now when absent. */
export type SandboxBillInput = {
  patientId: string
  items: readonly SandboxBillLineInput[]
  use?: 'complete' | 'exploratory'
  created?: string
}

/** A new patient: the id is assigned when absent. */
export type SandboxPatientInput = Omit<SandboxPatient, 'id' | 'lastUpdated'> & { id?: string }

/** A new appointment: the id is assigned when absent. */
export type SandboxAppointmentInput = Omit<SandboxAppointment, 'id' | 'lastUpdated'> & {
  id?: string
}

/** Bill lines as given, checked: the first refused line is named with what is wrong. */
function readLines(items: unknown): Omit<SandboxClaimItem, 'sequence' | 'identifier'>[] {
  if (!Array.isArray(items) || items.length === 0) {
    fail(
      'items is required: at least one line, like [{"code": "HYDRA", "text": "HydraFacial", "unitPrice": 199}].',
    )
  }
  if (items.length > 50) fail('A bill has at most 50 lines.')
  return items.map((raw: unknown, index) => {
    const line = `Line ${index + 1}`
    if (typeof raw !== 'object' || raw === null) {
      fail(`${line} must be an object with code, text and unitPrice.`)
    }
    const item = raw as Record<string, unknown>
    const code = requiredText(item.code, `${line}: code`, 'BTX20')
    const text = requiredText(item.text, `${line}: text`, '"Botox Cosmetic 20 units"')
    const quantity = item.quantity ?? 1
    if (typeof quantity !== 'number' || !Number.isFinite(quantity) || quantity <= 0) {
      fail(`${line}: quantity must be a number above 0, like 1 or 20.`)
    }
    const unitPrice = item.unitPrice
    if (
      typeof unitPrice !== 'number' ||
      !Number.isFinite(unitPrice) ||
      unitPrice < 0 ||
      Math.round(unitPrice * 100) / 100 !== unitPrice
    ) {
      fail(
        `${line}: unitPrice must be the price in dollars with at most 2 decimals, like 240 or 19.99.`,
      )
    }
    return { code, text, quantity, unitPrice }
  })
}

/**
 * The sandbox's records and the changes a tester or a test makes to them. Each change stamps
 * `lastUpdated` with `now()`, or 1 ms after the last stamp when the clock has not moved past it
 * (tests freeze it), so a changed record always sorts last and `_lastUpdated=ge…` finds it.
 */
export function createSandboxStore({
  now,
  patients,
  appointments,
  claims,
}: {
  now: () => Date
  patients: readonly SandboxPatient[]
  appointments: readonly SandboxAppointment[]
  claims: readonly SandboxClaim[]
}) {
  const indexes: { [K in SandboxResource]: SortedRecords<SandboxRecordOf[K]> } = {
    Patient: sortedRecords(
      'patient',
      patients.map((patient) => ({ ...patient })),
    ),
    Appointment: sortedRecords(
      'appointment',
      appointments.map((appointment) => ({ ...appointment })),
    ),
    Claim: sortedRecords(
      'claim',
      claims.map((claim) => ({ ...claim, items: claim.items.map((item) => ({ ...item })) })),
    ),
  }
  let lastStamp = Math.max(
    indexes.Patient.lastMs(),
    indexes.Appointment.lastMs(),
    indexes.Claim.lastMs(),
  )
  const stamp = () => {
    const at = now().getTime()
    lastStamp = at > lastStamp ? at : lastStamp + 1
    return formatInstant(lastStamp)
  }
  const nextPatientId = idCounter(indexes.Patient.ids(), 20001)
  const nextAppointmentId = idCounter(indexes.Appointment.ids(), 41001)
  const nextClaimId = idCounter(indexes.Claim.ids(), 58201)
  const nextLineId = idCounter(
    (function* () {
      for (const claim of indexes.Claim.list())
        for (const item of claim.items) yield item.identifier
    })(),
    910001,
  )

  const patientOf = (id: string) =>
    indexes.Patient.get(id) ?? fail(`The sandbox has no patient ${id}.`, 404)
  const appointmentOf = (id: string) =>
    indexes.Appointment.get(id) ?? fail(`The sandbox has no appointment ${id}.`, 404)
  const claimOf = (id: string) =>
    indexes.Claim.get(id) ?? fail(`The sandbox has no bill or quote ${id}.`, 404)
  const knownPatient = (id: unknown, field: string): string => {
    const patientId = requiredText(id, field, '20001')
    if (!indexes.Patient.has(patientId)) {
      fail(
        `${field} ${patientId} is no patient of the sandbox (GET /_sandbox/patients lists them).`,
      )
    }
    return patientId
  }

  /** A patient record from `input`, its fields checked; only the fields a patient has. */
  const checkedPatient = (
    id: string,
    input: Partial<SandboxPatientInput>,
  ): Omit<SandboxPatient, 'lastUpdated'> => {
    const patient: Omit<SandboxPatient, 'lastUpdated'> = {
      id,
      family: requiredText(input.family, 'family', 'Rivera'),
      given: requiredText(input.given, 'given', 'Ana'),
    }
    const phone = optionalText(input.phone, 'phone')
    if (phone) patient.phone = phone
    const email = optionalText(input.email, 'email')
    if (email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
      fail(`email "${email}" is not an e-mail address.`)
    }
    if (email) patient.email = email
    const birthDate = optionalText(input.birthDate, 'birthDate')
    if (birthDate && !isDate(birthDate)) {
      fail('birthDate must be a date written YYYY-MM-DD, like 1988-04-12.')
    }
    if (birthDate) patient.birthDate = birthDate
    if (input.excludeFromMailings !== undefined && typeof input.excludeFromMailings !== 'boolean') {
      fail('excludeFromMailings must be true or false.')
    }
    if (input.excludeFromMailings) patient.excludeFromMailings = true
    const referrer = optionalText(input.referringPatientId, 'referringPatientId')
    if (referrer !== undefined) {
      knownPatient(referrer, 'referringPatientId')
      if (referrer === id) fail('A patient cannot refer themselves.')
      patient.referringPatientId = referrer
    }
    if (input.status !== undefined && input.status !== 'patient' && input.status !== 'prospect') {
      fail('status must be "patient" or "prospect".')
    }
    if (input.status) patient.status = input.status
    return patient
  }

  /** An appointment record from `input`, its fields checked. */
  const checkedAppointment = (
    id: string,
    input: Partial<SandboxAppointmentInput>,
  ): Omit<SandboxAppointment, 'lastUpdated'> => {
    const patientId = knownPatient(input.patientId, 'patientId')
    if (!SANDBOX_APPOINTMENT_STATUSES.includes(input.status as SandboxAppointment['status'])) {
      fail(`status must be one of ${SANDBOX_APPOINTMENT_STATUSES.join(', ')}.`)
    }
    const start = requiredText(input.start, 'start', '2026-12-09T09:00:00-06:00')
    const end = requiredText(input.end, 'end', '2026-12-09T09:30:00-06:00')
    if (Number.isNaN(Date.parse(start)) || Number.isNaN(Date.parse(end))) {
      fail('start and end must be date-times, like 2026-12-09T09:00:00-06:00.')
    }
    if (Date.parse(end) < Date.parse(start)) fail('end comes before start.')
    const type = optionalText(input.type, 'type')
    return {
      id,
      patientId,
      status: input.status as SandboxAppointment['status'],
      start,
      end,
      ...(type ? { type } : {}),
    }
  }

  const numberedLines = (items: unknown): SandboxClaimItem[] =>
    readLines(items).map((line, index) => ({
      sequence: index + 1,
      identifier: nextLineId(),
      ...line,
    }))

  const voidedItems = (claim: SandboxClaim) =>
    claim.items.map((item) => ({ ...item, voided: true }))

  return {
    /** The patients, in Nextech's paging order (lastUpdated, then id). */
    patients: (): SandboxPatient[] => indexes.Patient.list(),
    appointments: (): SandboxAppointment[] => indexes.Appointment.list(),
    claims: (): SandboxClaim[] => indexes.Claim.list(),
    patient: (id: string) => indexes.Patient.get(id),
    appointment: (id: string) => indexes.Appointment.get(id),
    claim: (id: string) => indexes.Claim.get(id),

    /**
     * What a search of `resource` answers: the records with `from` ≤ lastUpdated < `to` (in
     * ms), counted, and a page of them from `offset`. Two binary searches and a slice.
     */
    range<K extends SandboxResource>(
      resource: K,
      from = Number.NEGATIVE_INFINITY,
      to = Number.POSITIVE_INFINITY,
    ) {
      const index = indexes[resource]
      const start = index.lowerBound(from)
      const end = to === Number.POSITIVE_INFINITY ? index.size() : index.lowerBound(to)
      return {
        total: Math.max(0, end - start),
        page: (offset: number, count: number): SandboxRecordOf[K][] =>
          index.slice(start + offset, Math.min(end, start + offset + count)),
      }
    },

    addPatient(input: SandboxPatientInput): SandboxPatient {
      const given = optionalText(input.id, 'id')
      if (given !== undefined && indexes.Patient.has(given)) {
        fail(`The sandbox has a patient ${given} already.`)
      }
      let id = given ?? nextPatientId()
      while (indexes.Patient.has(id)) id = nextPatientId()
      return indexes.Patient.put({ ...checkedPatient(id, input), lastUpdated: stamp() })
    },

    updatePatient(id: string, changes: Partial<Omit<SandboxPatient, 'id' | 'lastUpdated'>>) {
      const old = patientOf(id)
      return indexes.Patient.put({
        ...checkedPatient(id, { ...old, ...changes }),
        lastUpdated: stamp(),
      })
    },

    addAppointment(input: SandboxAppointmentInput): SandboxAppointment {
      const given = optionalText(input.id, 'id')
      if (given !== undefined && indexes.Appointment.has(given)) {
        fail(`The sandbox has an appointment ${given} already.`)
      }
      let id = given ?? nextAppointmentId()
      while (indexes.Appointment.has(id)) id = nextAppointmentId()
      return indexes.Appointment.put({ ...checkedAppointment(id, input), lastUpdated: stamp() })
    },

    updateAppointment(
      id: string,
      changes: Partial<Omit<SandboxAppointment, 'id' | 'lastUpdated'>>,
    ): SandboxAppointment {
      const old = appointmentOf(id)
      return indexes.Appointment.put({
        ...checkedAppointment(id, { ...old, ...changes }),
        lastUpdated: stamp(),
      })
    },

    /** A new bill (or quote) with lines numbered from 1, each with its own identifier. */
    addBill(input: SandboxBillInput): SandboxClaim {
      const patientId = knownPatient(input.patientId, 'patientId')
      const use = input.use ?? 'complete'
      if (use !== 'complete' && use !== 'exploratory') {
        fail('use must be "complete" (a bill) or "exploratory" (a quote).')
      }
      const created = optionalText(input.created, 'created') ?? new Date(now()).toISOString()
      if (Number.isNaN(Date.parse(created))) {
        fail('created must be a date-time, like 2026-11-20T10:30:00-06:00.')
      }
      const items = numberedLines(input.items)
      let id = nextClaimId()
      while (indexes.Claim.has(id)) id = nextClaimId()
      return indexes.Claim.put({
        id,
        patientId,
        use,
        status: 'active',
        created,
        items,
        lastUpdated: stamp(),
      })
    },

    /** Voids a bill: Nextech then answers it (and its lines) with status cancelled. */
    voidBill(id: string): SandboxClaim {
      const claim = claimOf(id)
      if (claim.status === 'cancelled') fail(`Bill ${id} is void already.`)
      return indexes.Claim.put({
        ...claim,
        status: 'cancelled',
        items: voidedItems(claim),
        lastUpdated: stamp(),
      })
    },

    /** Voids one line of a bill: its `item-status` turns cancelled, the bill stays active. */
    voidLine(claimId: string, sequence: number): SandboxClaim {
      const claim = claimOf(claimId)
      if (claim.status === 'cancelled') fail(`Bill ${claimId} is void: its lines are void with it.`)
      const line = claim.items.find((item) => item.sequence === sequence)
      if (!line) fail(`Bill ${claimId} has no line ${sequence}.`, 404)
      if (line.voided) fail(`Line ${sequence} of bill ${claimId} is void already.`)
      return indexes.Claim.put({
        ...claim,
        items: claim.items.map((item) =>
          item.sequence === sequence ? { ...item, voided: true } : item,
        ),
        lastUpdated: stamp(),
      })
    },

    /**
     * Corrects a bill as Nextech documents a corrected closed bill: the original is voided
     * (status cancelled) and a new active bill for the same patient and day replaces it with
     * `items`. Answers the new bill; the old one sorts just before it.
     */
    correctBill(claimId: string, items: readonly SandboxBillLineInput[]): SandboxClaim {
      const old = claimOf(claimId)
      if (old.status === 'cancelled') {
        fail(`Bill ${claimId} is void: correct the bill that replaced it instead.`)
      }
      if (old.use !== 'complete') {
        fail(`${claimId} is a quote, not a bill: only bills are corrected.`)
      }
      const lines = numberedLines(items)
      indexes.Claim.put({
        ...old,
        status: 'cancelled',
        items: voidedItems(old),
        lastUpdated: stamp(),
      })
      let id = nextClaimId()
      while (indexes.Claim.has(id)) id = nextClaimId()
      return indexes.Claim.put({
        id,
        patientId: old.patientId,
        use: 'complete',
        status: 'active',
        created: old.created,
        items: lines,
        lastUpdated: stamp(),
      })
    },
  }
}

/** The sandbox's records and their changes. */
export type SandboxStore = ReturnType<typeof createSandboxStore>

/**
 * The span `_lastUpdated` asks for, as [from, to) in ms, from its values (`ge`, `gt`, `le`,
 * `lt`, `eq` or none; a date or a date-time, with `Z` or an offset, UTC when it has none); a
 * sentence when a value is not one. A date alone covers its whole day.
 */
function lastUpdatedSpan(values: readonly string[]): { from: number; to: number } | string {
  let from = Number.NEGATIVE_INFINITY
  let to = Number.POSITIVE_INFINITY
  for (const raw of values) {
    // An offset's unencoded `+` arrives as a space.
    const value = raw.trim().replace(' ', '+')
    const match = /^(ge|gt|le|lt|eq)?(\d{4}-\d{2}-\d{2})(T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(
      value,
    )
    const day = match?.[2] ?? ''
    const time = match?.[3]
    const zoned = time === undefined || /(Z|[+-]\d{2}:?\d{2})$/.test(time)
    const ms = Date.parse(
      time === undefined ? `${day}T00:00:00Z` : `${day}${time}${zoned ? '' : 'Z'}`,
    )
    if (!match || !isDate(day) || Number.isNaN(ms)) {
      return `_lastUpdated "${raw}" is not a date: write it like ge2026-11-01 or ge2026-11-01T00:00:00Z (a + in an offset written %2B).`
    }
    const span = time === undefined ? DAY : 1
    const prefix = match[1] ?? 'eq'
    if (prefix === 'ge' || prefix === 'eq') from = Math.max(from, ms)
    if (prefix === 'gt') from = Math.max(from, ms + span)
    if (prefix === 'lt') to = Math.min(to, ms)
    if (prefix === 'le' || prefix === 'eq') to = Math.min(to, ms + span)
  }
  return { from, to }
}

/** Options of {@link createNextechSandbox}. */
export type NextechSandboxOptions = {
  /** The clock of tokens' expiry and of the records' `lastUpdated` stamps. */
  now?: () => Date
  /** The records it starts with; the demo practice's when absent. */
  patients?: readonly SandboxPatient[]
  /** The demo patients' appointments when absent and `patients` is too, else none. */
  appointments?: readonly SandboxAppointment[]
  /** The demo patients' bills when absent and `patients` is too, else none. */
  claims?: readonly SandboxClaim[]
  /**
   * The clock (ms) of the 20-requests-a-second limit: `performance.now()` unless a test moves one
   * of its own. Not `now`, which tests freeze: a frozen clock would keep every request in the
   * last second for ever. A test that moves `now` a second on sees the requests forgotten too.
   */
  rateClock?: () => number
}

/** The sandbox's Hono app and an in-process `fetch` that reaches it by its full addresses. */
export function createNextechSandbox({
  now = () => new Date(),
  patients,
  appointments,
  claims,
  rateClock = () => performance.now(),
}: NextechSandboxOptions = {}) {
  const users = new Map<string, SandboxUser>([
    [
      NEXTECH_SANDBOX.username,
      {
        password: NEXTECH_SANDBOX.password,
        clientId: NEXTECH_SANDBOX.clientId,
        practices: [NEXTECH_SANDBOX.practiceId],
      },
    ],
    [
      NEXTECH_SANDBOX.newUser.username,
      {
        password: NEXTECH_SANDBOX.newUser.password,
        clientId: NEXTECH_SANDBOX.clientId,
        practices: [NEXTECH_SANDBOX.practiceId],
        expired: true,
      },
    ],
  ])
  const demo = patients === undefined
  const store = createSandboxStore({
    now,
    patients: patients ?? SANDBOX_PATIENTS,
    appointments: appointments ?? (demo ? SANDBOX_APPOINTMENTS : []),
    claims: claims ?? (demo ? SANDBOX_CLAIMS : []),
  })
  const accessTokens = new Map<string, Grant>()
  const refreshTokens = new Map<string, Grant>()
  /** Requests in the last second, per user and endpoint: on the rate clock and on `now`. */
  const recent = new Map<string, { at: number; wall: number }[]>()
  /** Requests answered per endpoint (429s included): what a test or the bench counts. */
  const requests = new Map<string, number>()

  const issue = (username: string) => {
    const at = now().getTime()
    const access = randomBytes(24).toString('base64url')
    const refresh = randomBytes(32).toString('base64url')
    accessTokens.set(access, { username, expiresAt: at + ACCESS_SECONDS * 1000 })
    refreshTokens.set(refresh, { username, expiresAt: at + REFRESH_SECONDS * 1000 })
    return {
      token_type: 'Bearer',
      scope: 'user_impersonation',
      expires_in: String(ACCESS_SECONDS - 1),
      ext_expires_in: String(ACCESS_SECONDS - 1),
      expires_on: String(Math.floor(at / 1000) + ACCESS_SECONDS - 1),
      not_before: String(Math.floor(at / 1000) - 300),
      resource: NEXTECH_RESOURCE,
      access_token: access,
      refresh_token: refresh,
    }
  }

  /**
   * False when `username` passed 20 requests a second on `endpoint`. A request stops counting
   * once a second has passed on the rate clock, or on `now` when a test moves it on.
   */
  const withinLimit = (username: string, endpoint: string) => {
    const key = `${username} ${endpoint}`
    const at = rateClock()
    const wall = now().getTime()
    const times = (recent.get(key) ?? []).filter(
      (time) => time.at > at - 1000 && time.wall > wall - 1000,
    )
    if (times.length >= SANDBOX_RATE_LIMIT) {
      recent.set(key, times)
      return false
    }
    times.push({ at, wall })
    recent.set(key, times)
    return true
  }

  /** Each resource's search: how many match, and a page of them as FHIR resources. */
  const searches: {
    [K in SandboxResource]: (
      from: number,
      to: number,
    ) => { total: number; page: (offset: number, count: number) => fhir.Resource[] }
  } = {
    Patient(from, to) {
      const found = store.range('Patient', from, to)
      return {
        total: found.total,
        page: (offset, count) =>
          found
            .page(offset, count)
            .map((patient) =>
              sandboxPatientResource(
                patient,
                patient.referringPatientId ? store.patient(patient.referringPatientId) : undefined,
              ),
            ),
      }
    },
    Appointment(from, to) {
      const found = store.range('Appointment', from, to)
      return {
        total: found.total,
        page: (offset, count) =>
          found
            .page(offset, count)
            .map((appointment) =>
              sandboxAppointmentResource(appointment, store.patient(appointment.patientId)),
            ),
      }
    },
    Claim(from, to) {
      const found = store.range('Claim', from, to)
      return {
        total: found.total,
        page: (offset, count) => found.page(offset, count).map(sandboxClaimResource),
      }
    },
  }

  /** The JSON body of a tester's request: an object, else a 400 in words. */
  const bodyOf = async (c: Context): Promise<Record<string, unknown>> => {
    let body: unknown
    try {
      body = await c.req.json()
    } catch {
      fail('The body must be JSON, like {"patientId": "20001", "items": [...]}.')
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      fail('The body must be a JSON object.')
    }
    return body as Record<string, unknown>
  }

  /** A tester's change, answered with the record, or its refusal with a `message`. */
  const change = async (c: Context, act: () => unknown, status: 200 | 201 = 200) => {
    try {
      return c.json((await act()) as object, status)
    } catch (error) {
      if (error instanceof SandboxInputError)
        return c.json({ message: error.message }, error.status)
      throw error
    }
  }

  const app = new Hono()
    .post('/nextech-api.com/oauth2/token', async (c) => {
      requests.set('token', (requests.get('token') ?? 0) + 1)
      const form = new URLSearchParams(await c.req.text())
      const clientId = form.get('client_id') ?? ''
      if (form.get('resource') !== NEXTECH_RESOURCE) {
        return c.json(
          aadError(
            'invalid_resource',
            500011,
            `The resource principal named ${form.get('resource') ?? ''} was not found in the tenant named nextech-api.com.`,
          ),
          400,
        )
      }
      if (![...users.values()].some((user) => user.clientId === clientId)) {
        return c.json(
          aadError(
            'unauthorized_client',
            700016,
            `Application with identifier '${clientId}' was not found in the directory 'nextech-api.com'.`,
          ),
          400,
        )
      }
      const grantType = form.get('grant_type')
      if (grantType === 'password') {
        const username = (form.get('username') ?? '').toLowerCase()
        const user = users.get(username)
        if (!user) {
          return c.json(
            aadError(
              'invalid_grant',
              50034,
              `The user account ${username} does not exist in the nextech-api.com directory.`,
            ),
            400,
          )
        }
        if (user.password !== form.get('password')) {
          return c.json(
            aadError(
              'invalid_grant',
              50126,
              'Error validating credentials due to invalid username or password.',
            ),
            400,
          )
        }
        if (user.expired) {
          return c.json(aadError('invalid_grant', 50055, 'The password is expired.'), 400)
        }
        return c.json(issue(username))
      }
      if (grantType === 'refresh_token') {
        const grant = refreshTokens.get(form.get('refresh_token') ?? '')
        if (!grant || grant.expiresAt <= now().getTime()) {
          return c.json(
            aadError('invalid_grant', 700082, 'The refresh token has expired due to inactivity.'),
            400,
          )
        }
        refreshTokens.delete(form.get('refresh_token') ?? '')
        return c.json(issue(grant.username))
      }
      return c.json(
        aadError(
          'unsupported_grant_type',
          70003,
          `The app requested an unsupported grant type '${grantType ?? ''}'.`,
        ),
        400,
      )
    })
    .get('/api/:resource', (c) => {
      const resource = c.req.param('resource')
      requests.set(resource, (requests.get(resource) ?? 0) + 1)
      const token = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1] ?? ''
      const grant = accessTokens.get(token)
      if (!grant || grant.expiresAt <= now().getTime()) {
        c.header('WWW-Authenticate', 'Bearer error="invalid_token"')
        return c.json(outcome('login', 'The access token is missing, invalid or expired.'), 401)
      }
      if (!withinLimit(grant.username, resource)) {
        c.header('Retry-After', '1')
        return c.json(outcome('throttled', 'Too Many Requests'), 429)
      }
      const practiceId = c.req.header('nx-practice-id') ?? ''
      if (!users.get(grant.username)?.practices.includes(practiceId)) {
        return c.json(
          outcome('forbidden', `The user may not access practice '${practiceId}'.`),
          403,
        )
      }
      if (!Object.hasOwn(searches, resource)) {
        return c.json(outcome('not-supported', `The sandbox does not serve ${resource} yet.`), 404)
      }
      const span = lastUpdatedSpan(c.req.queries('_lastUpdated') ?? [])
      if (typeof span === 'string') return c.json(outcome('invalid', span), 400)
      const count = Math.min(50, Math.max(1, Number(c.req.query('_count') ?? 10) || 10))
      const page = Math.max(1, Number(c.req.query('page') ?? 1) || 1)
      const found = searches[resource as SandboxResource](span.from, span.to)
      const base = new URL(c.req.url)
      const link = (relation: string, pageNumber: number): fhir.BundleLink => {
        const url = new URL(base)
        url.searchParams.set('page', String(pageNumber))
        return { relation, url: url.toString() }
      }
      const last = Math.max(1, Math.ceil(found.total / count))
      const bundle: fhir.Bundle = {
        resourceType: 'Bundle',
        type: 'searchset',
        total: found.total,
        link: [
          link('self', page),
          link('first', 1),
          ...(page > 1 ? [link('previous', page - 1)] : []),
          ...(page < last ? [link('next', page + 1)] : []),
          link('last', last),
        ],
        entry: found.page((page - 1) * count, count).map((record) => ({
          fullUrl: `${base.origin}${base.pathname}/${record.id}`,
          resource: record,
        })),
      }
      return c.json(bundle)
    })
    // A tester's side of Nextech (not Nextech's API, no token): see and change the records.
    .get('/_sandbox/patients', (c) => c.json(store.patients()))
    .post('/_sandbox/patients', (c) =>
      change(
        c,
        async () => store.addPatient((await bodyOf(c)) as unknown as SandboxPatientInput),
        201,
      ),
    )
    .post('/_sandbox/bills', (c) =>
      change(
        c,
        async () => {
          const body = await bodyOf(c)
          return store.addBill({
            patientId: body.patientId as string,
            items: body.items as SandboxBillLineInput[],
            use: body.use as SandboxBillInput['use'],
            created: body.created as string | undefined,
          })
        },
        201,
      ),
    )
    .post('/_sandbox/bills/:id/void', (c) => change(c, () => store.voidBill(c.req.param('id'))))
    .post('/_sandbox/bills/:id/lines/:sequence/void', (c) =>
      change(c, () => {
        const sequence = Number(c.req.param('sequence'))
        if (!Number.isInteger(sequence) || sequence < 1) {
          fail(`"${c.req.param('sequence')}" is no line number: lines are numbered from 1.`)
        }
        return store.voidLine(c.req.param('id'), sequence)
      }),
    )
    .post('/_sandbox/bills/:id/correct', (c) =>
      change(
        c,
        async () =>
          store.correctBill(c.req.param('id'), (await bodyOf(c)).items as SandboxBillLineInput[]),
        201,
      ),
    )

  /**
   * `fetch` for the sandbox's full addresses (`http://host/nextech-sandbox/…`), answered in
   * this process: what a server outside production uses when no Nextech address is configured.
   */
  const fetchSandbox = (input: string, init: RequestInit): Promise<Response> => {
    const url = new URL(input)
    const path = url.pathname.replace(new RegExp(`^${NEXTECH_SANDBOX.mountPath}`), '')
    return Promise.resolve(app.request(`${path}${url.search}`, init))
  }

  return { app, fetch: fetchSandbox, requests, store }
}

/** A running sandbox: its app, its in-process fetch, its request counts and its records. */
export type NextechSandbox = ReturnType<typeof createNextechSandbox>

/** How many records {@link generateSandboxRecords} makes, from which seed, up to when. */
export type SandboxRecordCounts = {
  patients: number
  appointments: number
  bills: number
  seed?: number
  /**
   * The records' lastUpdated fall in the year before this instant. Fixed by default, so that a
   * seed gives the same records on any day.
   */
  until?: string
}

const GIVEN_NAMES: readonly string[] = `
Ana Grace Daniel Maria Olivia Emma Sophia Isabella Mia Charlotte Amelia Harper Evelyn
Abigail Emily Ella Madison Scarlett Victoria Aria Chloe Camila Penelope Layla Riley Zoey
Nora Lily Hannah Priya Aisha Mei Fatima Sofia Lucia James Michael David Carlos Jason Kevin
Marcus Ethan Noah Liam
`
  .trim()
  .split(/\s+/)

const FAMILY_NAMES: readonly string[] = `
Rivera Chen Okafor Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez
Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez
Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright
Scott Nguyen Patel Kim Singh Cohen Novak
`
  .trim()
  .split(/\s+/)

const AREA_CODES = ['512', '737', '210', '214', '713'] as const

/** A small seeded generator (mulberry32): the same seed, the same numbers, on any machine. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A date-time written as a practice in Texas writes it in winter, `…-06:00`. */
function practiceTime(ms: number): string {
  return `${new Date(ms - 6 * HOUR).toISOString().slice(0, 19)}-06:00`
}

/**
 * Made-up records for a bench or a tester, the same for the same seed: patients with unique
 * e-mails (`first.last.N@example.com`; a tenth have none), phones in the 555-01xx range kept
 * for fiction, a tenth referred by an earlier patient and a few prospects; appointments on
 * business hours (past ones mostly fulfilled, a few cancelled or no-shows; future ones booked);
 * bills of 1–3 lines from {@link SANDBOX_SERVICES}, about 5% quotes and 3% cancelled. Every
 * lastUpdated falls in the year before `until`. 10,000 / 20,000 / 50,000 take well under a second.
 */
export function generateSandboxRecords({
  patients: patientCount,
  appointments: appointmentCount,
  bills: billCount,
  seed = 1,
  until = '2026-11-01T00:00:00.000Z',
}: SandboxRecordCounts): {
  patients: SandboxPatient[]
  appointments: SandboxAppointment[]
  claims: SandboxClaim[]
} {
  const random = seededRandom(seed)
  const end = Date.parse(until)
  if (Number.isNaN(end)) throw new Error(`until "${until}" is not an instant.`)
  if (patientCount < 1 && appointmentCount + billCount > 0) {
    throw new Error('Appointments and bills need at least one patient.')
  }
  const start = end - 365 * DAY
  const below = (limit: number) => Math.floor(random() * limit)
  const pick = <T>(list: readonly T[]): T => list[below(list.length)] as T
  /** A business-hours slot (8:00 to 17:00, every 15 minutes), `day` days after `start`. */
  const slot = (day: number) =>
    Math.floor(start / DAY) * DAY + day * DAY + 6 * HOUR + 8 * HOUR + below(37) * 15 * 60_000

  const patients: SandboxPatient[] = []
  for (let index = 0; index < patientCount; index += 1) {
    const given = pick(GIVEN_NAMES)
    const family = pick(FAMILY_NAMES)
    const patient: SandboxPatient = {
      id: String(100001 + index),
      family,
      given,
      lastUpdated: formatInstant(start + below(365 * DAY)),
    }
    if (random() < 0.85) {
      patient.phone = `(${pick(AREA_CODES)}) 555-01${String(below(100)).padStart(2, '0')}`
    }
    if (random() < 0.9) {
      patient.email = `${given}.${family}.${index + 1}@example.com`.toLowerCase()
    }
    const born = Date.UTC(1950, 0, 1) + below(55 * 365) * DAY
    patient.birthDate = new Date(born).toISOString().slice(0, 10)
    if (random() < 0.08) patient.excludeFromMailings = true
    if (index > 0 && random() < 0.1) patient.referringPatientId = String(100001 + below(index))
    patient.status = random() < 0.07 ? 'prospect' : 'patient'
    patients.push(patient)
  }

  const types = Object.keys(APPOINTMENT_TYPES)
  const appointments: SandboxAppointment[] = []
  for (let index = 0; index < appointmentCount; index += 1) {
    // Up to two months ahead: the future ones are booked.
    const startMs = slot(below(365 + 60))
    const endMs = startMs + pick([30, 45, 60, 90]) * 60_000
    const roll = random()
    const past = endMs <= end
    const status: SandboxAppointment['status'] = past
      ? roll < 0.78
        ? 'fulfilled'
        : roll < 0.9
          ? 'cancelled'
          : roll < 0.98
            ? 'noshow'
            : 'arrived'
      : roll < 0.7
        ? 'booked'
        : roll < 0.9
          ? 'pending'
          : 'proposed'
    // Changed after the visit (within two days) or, for one ahead, when it was booked.
    const updated = past
      ? endMs + below(Math.max(1, Math.min(48 * HOUR, end - endMs)))
      : Math.max(start, startMs - 60 * DAY) + below(end - Math.max(start, startMs - 60 * DAY))
    appointments.push({
      id: String(500001 + index),
      patientId: String(100001 + below(patientCount)),
      status,
      start: practiceTime(startMs),
      end: practiceTime(endMs),
      type: pick(types),
      lastUpdated: formatInstant(Math.max(start, updated)),
    })
  }

  const claims: SandboxClaim[] = []
  let lineId = 900001
  for (let index = 0; index < billCount; index += 1) {
    const createdMs = slot(below(365))
    const quote = random() < 0.05
    const cancelled = random() < 0.03
    const lineCount = 1 + below(3)
    const items: SandboxClaimItem[] = []
    for (let sequence = 1; sequence <= lineCount; sequence += 1) {
      const service = pick(SANDBOX_SERVICES)
      const quantity = service.units
        ? service.units[0] + below(service.units[1] - service.units[0] + 1)
        : 1
      const item: SandboxClaimItem = {
        sequence,
        identifier: String(lineId++),
        code: service.code,
        text: service.text,
        quantity,
        unitPrice: service.unitPrice,
      }
      if (cancelled || random() < 0.02) item.voided = true
      items.push(item)
    }
    claims.push({
      id: String(700001 + index),
      patientId: String(100001 + below(patientCount)),
      use: quote ? 'exploratory' : 'complete',
      status: cancelled ? 'cancelled' : 'active',
      created: practiceTime(createdMs),
      items,
      // Closed within three days of the visit.
      lastUpdated: formatInstant(
        Math.max(start, createdMs + below(Math.max(1, Math.min(72 * HOUR, end - createdMs)))),
      ),
    })
  }
  return { patients, appointments, claims }
}
