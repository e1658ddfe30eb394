/// <reference types="fhir" />
import { describe, expect, it } from 'vitest'
import { nextechDate, readAppointment, readClaim, readPatient } from './resources.ts'
import {
  SANDBOX_APPOINTMENTS,
  SANDBOX_CLAIMS,
  SANDBOX_PATIENTS,
  type SandboxAppointment,
  type SandboxClaim,
  type SandboxPatient,
  sandboxAppointmentResource,
  sandboxClaimResource,
  sandboxPatientResource,
} from './sandbox.ts'

const EXTENSION = 'https://select.nextech-api.com/api/structuredefinition/'

/** Nextech's Claim example (NextechSystems/selectapidocspub, "Claim"), as published. */
const DOCS_CLAIM = {
  resourceType: 'Claim',
  id: '58179',
  meta: { lastUpdated: '2018-01-25T13:23:00.55+00:00' },
  identifier: [{ use: 'official', value: '58179' }],
  status: 'active',
  use: 'complete',
  patient: { reference: 'Patient/9ad0f4a0-f407-4df8-9561-767e09d3e8df' },
  billablePeriod: { start: '6/13/2018' },
  created: '6/13/2018',
  facility: { reference: 'Location/1' },
  careTeam: [{ sequence: 1, provider: { reference: 'Practitioner/9323' } }],
  diagnosis: [
    {
      diagnosisCodeableConcept: {
        coding: [{ system: 'ICD-10', code: 'M23.42' }],
        text: 'Loose body in knee, left knee',
      },
    },
  ],
  item: [
    {
      extension: [{ url: `${EXTENSION}item-status`, valueString: 'active' }],
      careTeamLinkId: [1],
      service: {
        coding: [{ system: 'http://hl7.org/fhir/ValueSet/service-uscls', code: '99244' }],
        text: 'CONSULT LEVEL 4',
      },
      servicedDateTime: '6/13/2018',
      locationCodeableConcept: {
        coding: [{ system: 'http://hl7.org/fhir/ValueSet/service-place', code: '11' }],
        text: 'Office',
      },
      quantity: { value: 1 },
      unitPrice: { value: 125 },
      net: { value: 125 },
    },
  ],
  total: { value: 125 },
} as unknown as fhir.Claim

/** The Appointment of Nextech's Appointment sample, as published. */
const DOCS_APPOINTMENT = {
  resourceType: 'Appointment',
  id: '12312',
  meta: { lastUpdated: '2018-01-25T13:23:00.55+00:00' },
  contained: [
    {
      resourceType: 'Location',
      id: '5',
      identifier: [{ use: 'official', value: '5' }],
      name: 'South Dermatology',
    },
    {
      resourceType: 'Practitioner',
      id: '2',
      identifier: [{ use: 'official', value: '2' }],
      name: [{ text: 'Davison, Darren', family: 'Davison', given: ['Darren', ''] }],
    },
  ],
  extension: [
    {
      url: `${EXTENSION}appointment-status`,
      valueReference: { reference: 'appointment-status/0', display: 'Pending' },
    },
    {
      url: `${EXTENSION}appointment-type`,
      valueReference: { reference: 'appointment-type/9', display: 'Surgery Cosmetic' },
    },
    {
      url: `${EXTENSION}appointment-purpose`,
      valueReference: {
        reference: 'appointment-purpose/161',
        display: 'Chemical Peel/Skin Treatments',
      },
    },
  ],
  identifier: [{ use: 'official', value: '12312' }],
  status: 'booked',
  description: 'Consult - Insurance Est. - Skin Lesion/Tumor for Darren Davis, MD',
  start: '2017-03-12T09:10:00-04:00',
  end: '2017-03-12T09:40:00-04:00',
  created: '2017-07-27T21:09:19.913Z',
  comment: 'This is a sample comment',
  participant: [
    {
      actor: {
        reference: 'Patient/4AAE9E3C-B1E4-46EA-93C2-CF3B36747D1A',
        display: 'Brimley, Henry',
      },
    },
    { actor: { reference: 'Location/5', display: 'South Dermatology' } },
    { actor: { reference: 'Practitioner/2', display: 'Davison, Darren' } },
  ],
} as unknown as fhir.Appointment

/** Nextech's Patient example, as published, less its address, contacts and a few extensions. */
const DOCS_PATIENT = {
  resourceType: 'Patient',
  id: '45bb641e-44c5-49a8-a36f-9dd7a0a50828',
  meta: { lastUpdated: '2018-12-20T09:13:28.297+00:00' },
  extension: [
    {
      url: 'http://hl7.org/fhir/v3/Race',
      valueCodeableConcept: {
        coding: [{ system: 'http://hl7.org/fhir/v3/Race', code: '2106-3' }],
        text: 'Caucasian',
      },
    },
    {
      url: `${EXTENSION}referral-source`,
      valueReference: { reference: 'referral-source/9238', display: 'Website' },
    },
    {
      url: `${EXTENSION}referring-physician`,
      valueReference: { reference: 'referring-physician/23', display: 'Dole, Robert' },
    },
    {
      url: `${EXTENSION}referring-patient`,
      valueReference: {
        reference: 'patient/f5a46423-0071-4437-aa34-231419fe970f',
        display: 'Brown, Phyllis',
      },
    },
    { url: `${EXTENSION}patient-note`, valueString: 'note text' },
    { url: `${EXTENSION}patients-referred`, valueInteger: 2 },
    { url: `${EXTENSION}prospects-referred`, valueInteger: 1 },
    { url: `${EXTENSION}patient-status`, valueString: 'prospect' },
    { url: `${EXTENSION}exclude-from-mailings`, valueBoolean: true },
    {
      url: `${EXTENSION}patient-type`,
      valueReference: { reference: 'patient-type/2', display: 'Insurance Patient' },
    },
  ],
  identifier: [
    { use: 'official', value: '45bb641e-44c5-49a8-a36f-9dd7a0a50828' },
    { use: 'usual', value: '112711' },
    { system: 'http://hl7.org/fhir/sid/us-ssn', value: '###-##-1234' },
  ],
  name: [
    {
      use: 'official',
      text: 'Mr. Gregory Brinkley Jr.',
      family: 'Brinkley',
      given: ['Gregory', ''],
      prefix: ['Mr.'],
      suffix: ['Jr.'],
    },
    { use: 'nickname', text: 'Greg', given: ['Greg'] },
  ],
  telecom: [
    { system: 'email', value: 'test@abc.com' },
    { system: 'phone', value: '(813) 555-5555', use: 'home', rank: 1 },
    { system: 'phone', value: '(813) 555-5555', use: 'work' },
    { system: 'other', value: '(813) 555-5555' },
    { system: 'fax', value: '(813) 555-5555' },
    {
      extension: [{ url: `${EXTENSION}method-privacy`, valueBoolean: true }],
      system: 'sms',
    },
  ],
  gender: 'male',
  birthDate: '1970-09-28',
} as unknown as fhir.Patient

describe('nextechDate', () => {
  it.each([
    ['6/13/2018', '2018-06-13'],
    ['12/31/2026', '2026-12-31'],
    [' 1/2/2026 ', '2026-01-02'],
    ['6/13/2018 3:45:00 PM', '2018-06-13T15:45:00'],
    ['6/13/2018 12:05:00 AM', '2018-06-13T00:05:00'],
    ['6/13/2018 12:30 PM', '2018-06-13T12:30:00'],
    ['6/13/2018 15:45', '2018-06-13T15:45:00'],
    ['1970-09-28', '1970-09-28'],
    ['2017-03-12T09:10:00-04:00', '2017-03-12T13:10:00.000Z'],
    ['2018-01-25T13:23:00.55+00:00', '2018-01-25T13:23:00.550Z'],
    ['2018-12-20T09:13:28.2970001+00:00', '2018-12-20T09:13:28.297Z'],
    ['2017-07-27T21:09:19.913Z', '2017-07-27T21:09:19.913Z'],
    ['2026-11-20T10:30:00+0100', '2026-11-20T09:30:00.000Z'],
    ['2026-11-20T10:30:00', '2026-11-20T10:30:00'],
    ['2026-11', '2026-11'],
  ])('reads %j as %j', (written, iso) => {
    expect(nextechDate(written)).toBe(iso)
  })

  it.each([
    [undefined],
    [null],
    [''],
    ['   '],
    ['soon'],
    ['2/30/2018'],
    ['13/1/2018'],
    ['2018-02-30'],
    ['6/13/2018 13:00:00 PM'],
    ['2018-06-13T25:00:00Z'],
  ])('answers null for %j', (written) => {
    expect(nextechDate(written)).toBeNull()
  })
})

describe('readClaim', () => {
  it("reads Nextech's Claim example", () => {
    expect(readClaim(DOCS_CLAIM)).toEqual({
      id: '58179',
      lastUpdated: '2018-01-25T13:23:00.550Z',
      patientId: '9ad0f4a0-f407-4df8-9561-767e09d3e8df',
      use: 'complete',
      status: 'active',
      created: '2018-06-13',
      lines: [
        {
          // The example has neither claim-item-identifier nor sequence: the line's place.
          lineId: '1',
          code: '99244',
          text: 'CONSULT LEVEL 4',
          quantity: 1,
          unitPriceCents: 12500,
          netCents: 12500,
          voided: false,
        },
      ],
    })
  })

  it('reads a voided line (item-status cancelled, as a string or a CodeableConcept) and the claim-item-identifier', () => {
    const claim = readClaim({
      resourceType: 'Claim',
      id: '7',
      status: 'active',
      use: 'complete',
      item: [
        {
          sequence: 1,
          extension: [
            { url: `${EXTENSION}item-status`, valueString: 'Cancelled' },
            { url: `${EXTENSION}claim-item-identifier`, valueIdentifier: { value: '910004' } },
          ],
          service: { coding: [{ code: 'LATISSE', display: 'Latisse 5 mL' }] },
          quantity: { value: 1 },
          unitPrice: { value: 189.99 },
          net: { value: 189.99 },
        },
        {
          sequence: 2,
          extension: [
            {
              url: `${EXTENSION}item-status`,
              valueCodeableConcept: { coding: [{ code: 'cancelled' }], text: 'Cancelled' },
            },
          ],
          service: { text: 'HydraFacial Signature' },
          unitPrice: { value: 199 },
        },
        {
          sequence: 3,
          extension: [{ url: `${EXTENSION}item-status`, valueString: 'active' }],
          service: { coding: [{ code: 'BTX20' }] },
          unitPrice: { value: 240 },
        },
      ],
    })
    expect(claim.lines).toEqual([
      {
        lineId: '910004',
        code: 'LATISSE',
        text: 'Latisse 5 mL',
        quantity: 1,
        unitPriceCents: 18999,
        netCents: 18999,
        voided: true,
      },
      {
        lineId: '2',
        code: null,
        text: 'HydraFacial Signature',
        quantity: 1,
        unitPriceCents: 19900,
        netCents: 19900,
        voided: true,
      },
      {
        lineId: '3',
        code: 'BTX20',
        text: 'BTX20',
        quantity: 1,
        unitPriceCents: 24000,
        netCents: 24000,
        voided: false,
      },
    ])
  })

  it('reads a quote (use exploratory) and a cancelled bill, its status as a string or a CodeableConcept', () => {
    expect(readClaim({ resourceType: 'Claim', id: '1', use: 'exploratory' }).use).toBe(
      'exploratory',
    )
    expect(readClaim({ resourceType: 'Claim', id: '2', status: 'cancelled' }).status).toBe(
      'cancelled',
    )
    const concept = {
      resourceType: 'Claim',
      id: '3',
      status: { coding: [{ code: 'Cancelled' }] },
    } as unknown as fhir.Claim
    expect(readClaim(concept).status).toBe('cancelled')
  })

  it('turns money into integer cents without float drift', () => {
    const line = (unitPrice: unknown, quantity?: number, net?: unknown) =>
      readClaim({
        resourceType: 'Claim',
        id: '1',
        item: [
          {
            sequence: 1,
            ...(quantity === undefined ? {} : { quantity: { value: quantity } }),
            unitPrice: { value: unitPrice as number },
            ...(net === undefined ? {} : { net: { value: net as number } }),
          },
        ],
      }).lines[0]
    expect(line(19.99)?.unitPriceCents).toBe(1999)
    expect(line(0.29)?.unitPriceCents).toBe(29)
    expect(line(1.005)?.unitPriceCents).toBe(101)
    expect(line(1.004)?.unitPriceCents).toBe(100)
    expect(line(4.35)?.unitPriceCents).toBe(435)
    expect(line(1234567.89)?.unitPriceCents).toBe(123456789)
    expect(line('12.50')?.unitPriceCents).toBe(1250)
    expect(line(-19.99)?.unitPriceCents).toBe(-1999)
    // No net written: quantity × unit price.
    expect(line(19.99, 3)?.netCents).toBe(5997)
    expect(line(13, 20)?.netCents).toBe(26000)
    expect(line(0.1, 3, 0.3)?.netCents).toBe(30)
    expect(line('not money')?.unitPriceCents).toBe(0)
  })

  it("reads the sandbox's bills back to what they were", () => {
    const [, hydra] = SANDBOX_CLAIMS
    expect(readClaim(sandboxClaimResource(hydra as SandboxClaim))).toEqual({
      id: '58202',
      lastUpdated: '2026-10-30T20:30:00.000Z',
      patientId: '20002',
      use: 'complete',
      status: 'active',
      created: '2026-10-30',
      lines: [
        {
          lineId: '910003',
          code: 'HYDRA',
          text: 'HydraFacial Signature',
          quantity: 1,
          unitPriceCents: 19900,
          netCents: 19900,
          voided: false,
        },
        {
          lineId: '910004',
          code: 'LATISSE',
          text: 'Latisse 5 mL',
          quantity: 1,
          unitPriceCents: 18999,
          netCents: 18999,
          voided: true,
        },
      ],
    })
  })

  it('takes what is missing as empty, and refuses only a claim without an id', () => {
    expect(readClaim({ resourceType: 'Claim', id: '9' })).toEqual({
      id: '9',
      lastUpdated: '1970-01-01T00:00:00.000Z',
      patientId: null,
      use: '',
      status: '',
      created: null,
      lines: [],
    })
    expect(readClaim({ resourceType: 'Claim', id: '9', item: [{ sequence: 4 }] }).lines).toEqual([
      {
        lineId: '4',
        code: null,
        text: '',
        quantity: 1,
        unitPriceCents: 0,
        netCents: 0,
        voided: false,
      },
    ])
    expect(
      readClaim({ resourceType: 'Claim', identifier: [{ use: 'official', value: '58179' }] }).id,
    ).toBe('58179')
    expect(() => readClaim({ resourceType: 'Claim' })).toThrow(
      'A Nextech Claim came without an id.',
    )
  })
})

describe('readAppointment', () => {
  it("reads Nextech's Appointment sample", () => {
    expect(readAppointment(DOCS_APPOINTMENT)).toEqual({
      id: '12312',
      lastUpdated: '2018-01-25T13:23:00.550Z',
      patientId: '4AAE9E3C-B1E4-46EA-93C2-CF3B36747D1A',
      status: 'booked',
      start: '2017-03-12T13:10:00.000Z',
      end: '2017-03-12T13:40:00.000Z',
      type: 'Surgery Cosmetic',
    })
  })

  it("reads the sandbox's appointments, and the patient of a lower-case reference", () => {
    const [ana] = SANDBOX_PATIENTS
    const [visit] = SANDBOX_APPOINTMENTS
    expect(
      readAppointment(sandboxAppointmentResource(visit as SandboxAppointment, ana)),
    ).toMatchObject({
      id: '41001',
      patientId: '20001',
      status: 'fulfilled',
      start: '2026-10-28T15:00:00.000Z',
      type: 'Injectables',
    })
    const booked = readAppointment({
      resourceType: 'Appointment',
      id: '5453',
      status: 'proposed',
      participant: [
        { actor: { reference: 'location/1' } } as fhir.AppointmentParticipant,
        { actor: { reference: 'patient/EEA9EC85-849E-4B88-9859-9F30CF309446' } },
      ] as fhir.AppointmentParticipant[],
    })
    expect(booked.patientId).toBe('EEA9EC85-849E-4B88-9859-9F30CF309446')
  })

  it('takes what is missing as empty (a status Nextech omits, no participant)', () => {
    expect(readAppointment({ resourceType: 'Appointment', id: '1' } as fhir.Appointment)).toEqual({
      id: '1',
      lastUpdated: '1970-01-01T00:00:00.000Z',
      patientId: null,
      status: '',
      start: null,
      end: null,
      type: null,
    })
    expect(() => readAppointment({ resourceType: 'Appointment' } as fhir.Appointment)).toThrow(
      'A Nextech Appointment came without an id.',
    )
  })
})

describe('readPatient', () => {
  it("reads Nextech's Patient example", () => {
    expect(readPatient(DOCS_PATIENT)).toEqual({
      id: '45bb641e-44c5-49a8-a36f-9dd7a0a50828',
      lastUpdated: '2018-12-20T09:13:28.297Z',
      firstName: 'Gregory',
      lastName: 'Brinkley',
      email: 'test@abc.com',
      // The home phone is the preferred contact (rank 1).
      phone: '(813) 555-5555',
      birthDate: '1970-09-28',
      excludeFromMailings: true,
      referringPatientId: 'f5a46423-0071-4437-aa34-231419fe970f',
      status: 'prospect',
    })
  })

  it('takes the mobile phone first, then the preferred one, and the preferred e-mail', () => {
    const patient = (telecom: fhir.ContactPoint[]) =>
      readPatient({ resourceType: 'Patient', id: '1', telecom })
    expect(
      patient([
        { system: 'phone', value: '(512) 555-0100', use: 'home', rank: 1 },
        { system: 'phone', value: '(512) 555-0101', use: 'mobile' },
      ]).phone,
    ).toBe('(512) 555-0101')
    expect(
      patient([
        { system: 'phone', value: '(512) 555-0102', use: 'work' },
        { system: 'phone', value: '(512) 555-0103', use: 'work', rank: 1 },
        { system: 'phone', value: '(512) 555-0104', use: 'old' },
      ]).phone,
    ).toBe('(512) 555-0103')
    expect(
      patient([
        { system: 'phone', value: '  ', use: 'mobile' },
        { system: 'email', value: 'old@example.com' },
        { system: 'email', value: ' Ana@Example.com ', rank: 1 },
      ]),
    ).toMatchObject({ phone: null, email: 'Ana@Example.com' })
  })

  it("reads the sandbox's patients: the referring patient, patientprospect as a patient", () => {
    const [avery, blake] = SANDBOX_PATIENTS as [SandboxPatient, SandboxPatient]
    expect(readPatient(sandboxPatientResource(blake, avery))).toEqual({
      id: '20002',
      lastUpdated: '2026-11-02T09:30:00.000Z',
      firstName: 'Blake',
      lastName: 'Martinez',
      email: 'blake.martinez@example.com',
      phone: '(555) 010-1002',
      birthDate: '1979-09-30',
      excludeFromMailings: false,
      referringPatientId: '20001',
      status: 'patient',
    })
    const both = readPatient({
      resourceType: 'Patient',
      id: '2',
      extension: [{ url: `${EXTENSION}patient-status`, valueString: 'patientprospect' }],
    })
    expect(both.status).toBe('patient')
  })

  it('takes what is missing as empty, a name written out whole, a M/D/YYYY birth date', () => {
    expect(readPatient({ resourceType: 'Patient', id: '3' })).toEqual({
      id: '3',
      lastUpdated: '1970-01-01T00:00:00.000Z',
      firstName: '',
      lastName: '',
      email: null,
      phone: null,
      birthDate: null,
      excludeFromMailings: false,
      referringPatientId: null,
      status: null,
    })
    expect(
      readPatient({
        resourceType: 'Patient',
        id: '4',
        name: [{ text: 'Jane L Smith' }],
        birthDate: '2/4/1968',
      }),
    ).toMatchObject({ firstName: 'Jane', lastName: 'Smith', birthDate: '1968-02-04' })
    expect(() => readPatient({ resourceType: 'Patient' })).toThrow(
      'A Nextech Patient came without an id.',
    )
  })
})
