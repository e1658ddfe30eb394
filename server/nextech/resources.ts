/// <reference types="fhir" />

/**
 * Nextech's FHIR resources read into the plain records the sync keeps: a Patient, an Appointment,
 * a Claim (a bill, or a quote when `use` is exploratory). Nextech writes some dates its own way
 * (its Claim example: `"created": "6/13/2018"`), leaves out what a practice did not fill in, and
 * names its own fields in extensions under
 * `https://select.nextech-api.com/api/structuredefinition/`; the readers take both date forms,
 * never fail on a missing field, and refuse only a resource without an id.
 */

/** A Nextech patient as the sync keeps it. */
export type NextechPatient = {
  id: string
  /** ISO instant (`meta.lastUpdated`); 1970-01-01 when Nextech sent none. */
  lastUpdated: string
  firstName: string
  lastName: string
  email: string | null
  phone: string | null
  /** YYYY-MM-DD. */
  birthDate: string | null
  excludeFromMailings: boolean
  /** The patient who referred this one (`referring-patient`). */
  referringPatientId: string | null
  /** `patient-status`; Nextech's `patientprospect` reads as a patient. */
  status: 'patient' | 'prospect' | null
}

/** A Nextech appointment as the sync keeps it. */
export type NextechAppointment = {
  id: string
  lastUpdated: string
  patientId: string | null
  /** FHIR's status (booked, arrived, fulfilled, cancelled, noshow…); empty when Nextech omits it. */
  status: string
  /** ISO (see {@link nextechDate}). */
  start: string | null
  end: string | null
  /** The appointment type's name in Select (`appointment-type`). */
  type: string | null
}

/** One line (a charge) of a Nextech bill. */
export type NextechClaimLine = {
  /** The `claim-item-identifier`, else the line's sequence. */
  lineId: string
  code: string | null
  text: string
  quantity: number
  unitPriceCents: number
  netCents: number
  /** The line's `item-status` is cancelled (voided, deleted, or replaced by a correction). */
  voided: boolean
}

/** A Nextech bill (`use` complete) or quote (`exploratory`) as the sync keeps it. */
export type NextechClaim = {
  id: string
  lastUpdated: string
  patientId: string | null
  /** `complete` (a bill) or `exploratory` (a quote); empty when Nextech sent none. */
  use: string
  /** `active`, or `cancelled` once voided or replaced by a correction. */
  status: string
  /** ISO (see {@link nextechDate}). */
  created: string | null
  lines: NextechClaimLine[]
}

const EPOCH = '1970-01-01T00:00:00.000Z'

/** The extension named `name` among Nextech's (matched on the end of its URL). */
function extension(
  extensions: readonly fhir.Extension[] | undefined,
  name: string,
): fhir.Extension | undefined {
  return extensions?.find(
    (candidate) =>
      typeof candidate?.url === 'string' &&
      candidate.url.toLowerCase().endsWith(`/structuredefinition/${name}`),
  )
}

/** A non-empty trimmed string, else null. */
function text(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const trimmed = value.trim()
  return trimmed === '' ? null : trimmed
}

/**
 * The id of the resource a reference names when it is of `type` (`Patient/20001`,
 * `patient/45bb641e-…`, or a full URL ending so); null otherwise.
 */
function referencedId(reference: fhir.Reference | undefined, type: string): string | null {
  const value = text(reference?.reference)
  if (!value) return null
  const match = new RegExp(`(?:^|/)${type}/([^/?#]+)$`, 'i').exec(value)
  return match?.[1] ? decodeURIComponent(match[1]) : null
}

/** A code written as a string or as a CodeableConcept (Nextech documents both), lower case. */
function codeOf(value: unknown): string | null {
  if (typeof value === 'string') return text(value)?.toLowerCase() ?? null
  if (typeof value === 'object' && value !== null) {
    const concept = value as fhir.CodeableConcept
    const code = concept.coding?.map((coding) => text(coding?.code)).find(Boolean)
    return (code ?? text(concept.text))?.toLowerCase() ?? null
  }
  return null
}

/** The resource's id, else its official (or first) identifier; a missing one is an error. */
function idOf(
  resource: { id?: string; identifier?: readonly fhir.Identifier[] } | undefined,
  type: string,
): string {
  const identifiers = resource?.identifier ?? []
  const id =
    text(resource?.id) ??
    text(identifiers.find((identifier) => identifier?.use === 'official')?.value) ??
    text(identifiers[0]?.value)
  if (!id) throw new Error(`A Nextech ${type} came without an id.`)
  return id
}

function pad(value: number): string {
  return String(value).padStart(2, '0')
}

/** YYYY-MM-DD when year, month and day make a real date; null otherwise. */
function calendarDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day))
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return null
  }
  return `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}`
}

/**
 * A Nextech date or date-time in ISO form. Nextech writes ISO (`2017-03-12T09:10:00-04:00`,
 * `1970-09-28`) and, on Claims, `6/13/2018`; times like `6/13/2018 3:45:00 PM` are read too.
 * A date alone answers `YYYY-MM-DD`; a date-time with `Z` or an offset answers the instant
 * (`2017-03-12T13:10:00.000Z`); one without a zone answers `YYYY-MM-DDTHH:mm:ss`, the
 * practice's local time as written. Empty or unreadable: null.
 */
export function nextechDate(value: string | undefined | null): string | null {
  const written = text(value)
  if (!written) return null
  const us =
    /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*([AaPp][Mm])?)?$/.exec(
      written,
    )
  if (us) {
    const date = calendarDate(Number(us[3]), Number(us[1]), Number(us[2]))
    if (!date || us[4] === undefined) return date
    let hour = Number(us[4])
    const half = us[7]?.toUpperCase()
    if (half && (hour < 1 || hour > 12)) return null
    if (half === 'PM' && hour < 12) hour += 12
    if (half === 'AM' && hour === 12) hour = 0
    const minute = Number(us[5])
    const second = Number(us[6] ?? 0)
    if (hour > 23 || minute > 59 || second > 59) return null
    return `${date}T${pad(hour)}:${pad(minute)}:${pad(second)}`
  }
  const iso =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(
      written,
    )
  if (!iso) {
    // FHIR's partial dates (a year, a year and month) are kept as written.
    return /^\d{4}(-\d{2})?$/.test(written) ? written : null
  }
  const date = calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3]))
  if (!date || iso[4] === undefined) return date
  const hour = Number(iso[4])
  const minute = Number(iso[5])
  const second = Number(iso[6] ?? 0)
  if (hour > 23 || minute > 59 || second > 59) return null
  const local = `${date}T${pad(hour)}:${pad(minute)}:${pad(second)}`
  if (!iso[8]) return local
  // Beyond milliseconds (Nextech may write .5530001) is cut, which Date.parse may not read.
  const fraction = (iso[7] ?? '').slice(0, 4)
  const zone = iso[8].toUpperCase() === 'Z' ? 'Z' : iso[8].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')
  const ms = Date.parse(`${local}${fraction}${zone}`)
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}

/** `meta.lastUpdated` as an ISO instant; the epoch when absent, so it sorts first. */
function lastUpdatedOf(resource: fhir.Resource): string {
  const read = nextechDate(resource.meta?.lastUpdated)
  if (!read) return EPOCH
  if (read.endsWith('Z')) return read
  // A date or a date-time without a zone: taken as UTC.
  const ms = Date.parse(read.length === 10 ? `${read}T00:00:00Z` : `${read}Z`)
  return Number.isNaN(ms) ? EPOCH : new Date(ms).toISOString()
}

/**
 * An amount of money in integer cents, rounded half away from zero on its decimal digits as
 * written (19.99 → 1999, 1.005 → 101), so that no float drift creeps in; null when absent.
 */
function cents(value: unknown): number | null {
  const number = typeof value === 'string' ? Number(value.trim()) : value
  if (
    typeof number !== 'number' ||
    !Number.isFinite(number) ||
    (typeof value === 'string' && value.trim() === '')
  ) {
    return null
  }
  const written = typeof value === 'string' ? value.trim() : String(number)
  const digits = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(written)
  if (!digits) return Math.round(number * 100) || 0
  const fraction = `${digits[3] ?? ''}000`
  const whole = Number(digits[2] || '0') * 100 + Number(fraction.slice(0, 2))
  const rounded = whole + (Number(fraction[2]) >= 5 ? 1 : 0)
  return digits[1] === '-' && rounded !== 0 ? -rounded : rounded
}

/** The order a phone is preferred in: mobile first, then the patient's preferred (rank 1). */
function phoneOrder(contact: fhir.ContactPoint): number {
  if (contact.use === 'mobile') return 0
  if (contact.rank === 1) return 1
  if (contact.use === 'home') return 2
  if (contact.use === 'work') return 3
  return 4
}

/** The contact still in use that comes first in `order` (then by rank, then as listed). */
function preferred(
  telecom: readonly fhir.ContactPoint[],
  system: string,
  order: (contact: fhir.ContactPoint) => number,
): string | null {
  const candidates = telecom
    .map((contact, index) => ({ contact, index, value: text(contact?.value) }))
    .filter(
      ({ contact, value }) => value !== null && contact.system === system && contact.use !== 'old',
    )
    .sort(
      (a, b) =>
        order(a.contact) - order(b.contact) ||
        (a.contact.rank ?? Number.MAX_SAFE_INTEGER) - (b.contact.rank ?? Number.MAX_SAFE_INTEGER) ||
        a.index - b.index,
    )
  return candidates[0]?.value ?? null
}

/** The patient's official name (else usual, else any but a nickname, else the first). */
function nameOf(names: readonly fhir.HumanName[]): { firstName: string; lastName: string } {
  const name =
    names.find((candidate) => candidate?.use === 'official') ??
    names.find((candidate) => candidate?.use === 'usual') ??
    names.find((candidate) => candidate && candidate.use !== 'nickname') ??
    names[0]
  const given = (name?.given ?? []).map(text).find(Boolean) ?? null
  const family = text(name?.family)
  if (given || family) return { firstName: given ?? '', lastName: family ?? '' }
  // Only the whole name written out: "Jane L Smith".
  const words = (text(name?.text) ?? '').split(/\s+/).filter(Boolean)
  return { firstName: words[0] ?? '', lastName: words.length > 1 ? (words.at(-1) ?? '') : '' }
}

/** A Nextech Patient as the sync keeps it. */
export function readPatient(resource: fhir.Patient): NextechPatient {
  const id = idOf(resource, 'Patient')
  const telecom = resource.telecom ?? []
  const status = text(extension(resource.extension, 'patient-status')?.valueString)?.toLowerCase()
  const exclude = extension(resource.extension, 'exclude-from-mailings')
  const birthDate = nextechDate(resource.birthDate)
  return {
    id,
    lastUpdated: lastUpdatedOf(resource),
    ...nameOf(resource.name ?? []),
    email: preferred(telecom, 'email', () => 0),
    phone: preferred(telecom, 'phone', phoneOrder),
    birthDate: birthDate && /^\d{4}-\d{2}-\d{2}/.test(birthDate) ? birthDate.slice(0, 10) : null,
    excludeFromMailings:
      exclude?.valueBoolean === true || text(exclude?.valueString)?.toLowerCase() === 'true',
    referringPatientId: referencedId(
      extension(resource.extension, 'referring-patient')?.valueReference,
      'patient',
    ),
    status:
      status === 'prospect'
        ? 'prospect'
        : status === 'patient' || status === 'patientprospect'
          ? 'patient'
          : null,
  }
}

/** A Nextech Appointment as the sync keeps it. */
export function readAppointment(resource: fhir.Appointment): NextechAppointment {
  const id = idOf(resource, 'Appointment')
  const patientId =
    (resource.participant ?? [])
      .map((participant) => referencedId(participant?.actor, 'patient'))
      .find(Boolean) ?? null
  const type = extension(resource.extension, 'appointment-type')
  return {
    id,
    lastUpdated: lastUpdatedOf(resource),
    patientId,
    status: text(resource.status)?.toLowerCase() ?? '',
    start: nextechDate(resource.start),
    end: nextechDate(resource.end),
    type:
      text(type?.valueReference?.display) ??
      text(type?.valueString) ??
      text(type?.valueReference?.reference?.split('/').at(-1)),
  }
}

/** One line of a Claim; `index` numbers it when Nextech sent neither identifier nor sequence. */
function readLine(item: fhir.ClaimItem, index: number): NextechClaimLine {
  const identifier = extension(item.extension, 'claim-item-identifier')
  const lineId =
    text(identifier?.valueIdentifier?.value) ??
    text(identifier?.valueString) ??
    (typeof identifier?.valueInteger === 'number' ? String(identifier.valueInteger) : null) ??
    (typeof item.sequence === 'number' ? String(item.sequence) : String(index + 1))
  const coding = item.service?.coding ?? []
  const code = coding.map((candidate) => text(candidate?.code)).find(Boolean) ?? null
  const quantity =
    typeof item.quantity?.value === 'number' && Number.isFinite(item.quantity.value)
      ? item.quantity.value
      : 1
  const unitPriceCents = cents(item.unitPrice?.value) ?? 0
  const status = extension(item.extension, 'item-status')
  const itemStatus = codeOf(
    status?.valueString ?? status?.valueCodeableConcept ?? status?.valueCode,
  )
  return {
    lineId,
    code,
    text:
      text(item.service?.text) ??
      coding.map((candidate) => text(candidate?.display)).find(Boolean) ??
      code ??
      '',
    quantity,
    unitPriceCents,
    netCents: cents(item.net?.value) ?? Math.round(quantity * unitPriceCents),
    voided: itemStatus === 'cancelled' || itemStatus === 'entered-in-error',
  }
}

/** A Nextech Claim (a bill, or a quote when `use` is exploratory) as the sync keeps it. */
export function readClaim(resource: fhir.Claim): NextechClaim {
  const id = idOf(resource, 'Claim')
  return {
    id,
    lastUpdated: lastUpdatedOf(resource),
    patientId: referencedId(resource.patient, 'patient'),
    use: text(resource.use)?.toLowerCase() ?? '',
    status: codeOf(resource.status) ?? '',
    created: nextechDate(resource.created),
    lines: (resource.item ?? []).map(readLine),
  }
}
