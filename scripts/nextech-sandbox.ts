/**
 * `npx tsx scripts/nextech-sandbox.ts`: what a tester does in "Nextech" while the server runs
 * outside production with the built-in Nextech sandbox (no NEXTECH_TOKEN_URL / NEXTECH_API_URL):
 * list its patients, add one, bill a patient, void a bill or one of its lines, correct a bill.
 * The next sync reads the change as it would read Nextech's. It calls the sandbox's tester
 * endpoints (`/nextech-sandbox/_sandbox/…`, server/nextech/sandbox.ts) and says what happened.
 *
 *   npx tsx scripts/nextech-sandbox.ts patients
 *   npx tsx scripts/nextech-sandbox.ts bill --patient 20001 --code BTX20 --text "Botox 20 units" --price 240
 *   npx tsx scripts/nextech-sandbox.ts void-line 58201 2
 *
 * The server is `--url`, else http://localhost:$PORT (3000 unless PORT is set), where `npm start`
 * serves; with `npm run dev` the API (and the sandbox) listen on API_PORT, 3001 by default.
 */
import { parseArgs } from 'node:util'
import {
  NEXTECH_SANDBOX,
  SANDBOX_SERVICES,
  type SandboxBillLineInput,
  type SandboxClaim,
  type SandboxPatient,
} from '#server/nextech/sandbox.ts'

const USAGE = `Usage: npx tsx scripts/nextech-sandbox.ts [--url URL] <command>

  patients                         the sandbox's patients
  add-patient --given NAME --family NAME [--email E] [--phone P] [--birth-date YYYY-MM-DD]
              [--referred-by PATIENT] [--prospect] [--no-mailings]
  bill --patient ID --code CODE [--text TEXT] [--price DOLLARS] [--quantity N]
       [--code … for each further line] [--quote] [--date YYYY-MM-DD]
  void BILL                        void a bill (Nextech then answers it cancelled)
  void-line BILL LINE              void one line of a bill
  correct BILL --code CODE [--text TEXT] [--price DOLLARS] [--quantity N] [--code …]
                                   void the bill and bill its lines anew, as Nextech does

A code the sandbox knows (${SANDBOX_SERVICES.map((service) => service.code).join(', ')})
fills in its text and price. --url defaults to http://localhost:$PORT (3000).`

/** A refusal or a failure, said to the tester as it is. */
class Stop extends Error {}

const money = (cents: number) =>
  (cents / 100).toLocaleString('en-US', { style: 'currency', currency: 'USD' })

const lineCents = (line: { quantity: number; unitPrice: number }) =>
  Math.round(line.quantity * Math.round(line.unitPrice * 100))

/** A US date from the ISO one the sandbox keeps, as Nextech shows it: 11/27/2026. */
const day = (iso: string) => {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso)
  return match ? `${Number(match[2])}/${Number(match[3])}/${match[1]}` : iso
}

/** The lines of a bill in words, and its total without the voided ones. */
function describeLines(claim: SandboxClaim): string {
  const lines = claim.items.map(
    (item) =>
      `  ${item.sequence}. ${item.code} ${item.text}: ${item.quantity} × ${money(Math.round(item.unitPrice * 100))} = ${money(lineCents(item))}${item.voided ? ' (void)' : ''}`,
  )
  const total = claim.items.reduce((sum, item) => (item.voided ? sum : sum + lineCents(item)), 0)
  return [...lines, `  Total ${money(total)}.`].join('\n')
}

function describeBill(claim: SandboxClaim): string {
  const kind = claim.use === 'exploratory' ? 'Quote' : 'Bill'
  const state = claim.status === 'cancelled' ? 'void' : 'active'
  return `${kind} ${claim.id} for patient ${claim.patientId}, ${day(claim.created)}, ${state}:\n${describeLines(claim)}`
}

function describePatient(patient: SandboxPatient): string {
  return [
    patient.id,
    `${patient.given} ${patient.family}`,
    patient.email ?? 'no e-mail',
    patient.phone ?? 'no phone',
    ...(patient.birthDate ? [`born ${patient.birthDate}`] : []),
    ...(patient.status === 'prospect' ? ['prospect'] : []),
    ...(patient.referringPatientId ? [`referred by ${patient.referringPatientId}`] : []),
    ...(patient.excludeFromMailings ? ['no mailings'] : []),
  ].join(', ')
}

/** The bill lines of `--code … --text … --price … --quantity …` groups, in the order given. */
function readLines(
  tokens: readonly { kind: string; name?: string; value?: string | undefined }[] = [],
): SandboxBillLineInput[] {
  const lines: { code: string; text?: string; price?: string; quantity?: string }[] = []
  for (const token of tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue
    if (token.name === 'code') {
      lines.push({ code: token.value })
      continue
    }
    if (token.name !== 'text' && token.name !== 'price' && token.name !== 'quantity') continue
    const line = lines.at(-1)
    if (!line) throw new Stop(`--${token.name} comes after the --code of its line.`)
    line[token.name] = token.value
  }
  if (lines.length === 0) throw new Stop('Give at least one line: --code CODE [--price DOLLARS].')
  return lines.map((line) => {
    const known = SANDBOX_SERVICES.find(
      (service) => service.code.toLowerCase() === line.code.toLowerCase(),
    )
    const price =
      line.price === undefined ? known?.unitPrice : Number(line.price.replace(/^\$/, ''))
    if (price === undefined) {
      throw new Stop(`--price is needed for ${line.code}, a code the sandbox has no price for.`)
    }
    if (!Number.isFinite(price)) {
      throw new Stop(`--price "${line.price}" is not a number of dollars.`)
    }
    const quantity = line.quantity === undefined ? 1 : Number(line.quantity)
    if (!Number.isFinite(quantity)) {
      throw new Stop(`--quantity "${line.quantity}" is not a number.`)
    }
    return {
      code: known && line.code.toLowerCase() === known.code.toLowerCase() ? known.code : line.code,
      text: line.text ?? known?.text ?? line.code,
      quantity,
      unitPrice: price,
    }
  })
}

/** Calls the sandbox's tester endpoint `path`; its answer, or a Stop saying why not. */
async function call<T>(base: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const url = `${base.replace(/\/$/, '')}${NEXTECH_SANDBOX.mountPath}/_sandbox${path}`
  let response: Response
  try {
    response = await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  } catch {
    throw new Stop(
      `Nothing answers at ${base}. Start the server (npm start), or give its address with --url.`,
    )
  }
  const answer = (await response.json().catch(() => undefined)) as
    | (T & { message?: string })
    | undefined
  if (response.ok && answer !== undefined) return answer as T
  if (answer?.message) throw new Stop(`The sandbox refused: ${answer.message}`)
  if (response.status === 404) {
    throw new Stop(
      `${base} does not serve the Nextech sandbox: it is served outside production only, when NEXTECH_TOKEN_URL and NEXTECH_API_URL are not set.`,
    )
  }
  throw new Stop(`${base} answered ${response.status} to ${method} ${url}.`)
}

async function main(argv: string[]): Promise<string> {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    tokens: true,
    options: {
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      patient: { type: 'string' },
      code: { type: 'string', multiple: true },
      text: { type: 'string', multiple: true },
      price: { type: 'string', multiple: true },
      quantity: { type: 'string', multiple: true },
      quote: { type: 'boolean' },
      date: { type: 'string' },
      given: { type: 'string' },
      family: { type: 'string' },
      email: { type: 'string' },
      phone: { type: 'string' },
      'birth-date': { type: 'string' },
      'referred-by': { type: 'string' },
      prospect: { type: 'boolean' },
      'no-mailings': { type: 'boolean' },
    },
  })
  const [command, ...rest] = positionals
  if (values.help || !command) return USAGE
  const base = values.url ?? `http://localhost:${process.env.PORT ?? '3000'}`
  const argument = (index: number, name: string) => {
    const value = rest[index]
    if (!value) throw new Stop(`${command} needs the ${name}.\n\n${USAGE}`)
    return value
  }

  switch (command) {
    case 'patients': {
      const patients = await call<SandboxPatient[]>(base, 'GET', '/patients')
      return [
        `${patients.length} patients in the Nextech sandbox, last changed last:`,
        ...patients.map((patient) => `  ${describePatient(patient)}`),
      ].join('\n')
    }
    case 'add-patient': {
      const patient = await call<SandboxPatient>(base, 'POST', '/patients', {
        given: values.given,
        family: values.family,
        email: values.email,
        phone: values.phone,
        birthDate: values['birth-date'],
        referringPatientId: values['referred-by'],
        status: values.prospect ? 'prospect' : 'patient',
        excludeFromMailings: values['no-mailings'] ?? false,
      })
      return `Patient ${patient.id} added: ${describePatient(patient)}.`
    }
    case 'bill': {
      if (!values.patient) throw new Stop('bill needs --patient, the Nextech id of the patient.')
      const claim = await call<SandboxClaim>(base, 'POST', '/bills', {
        patientId: values.patient,
        items: readLines(tokens),
        use: values.quote ? 'exploratory' : 'complete',
        ...(values.date ? { created: values.date } : {}),
      })
      return `${describeBill(claim)}\nThe next sync reads it.`
    }
    case 'void': {
      const claim = await call<SandboxClaim>(
        base,
        'POST',
        `/bills/${encodeURIComponent(argument(0, 'bill id'))}/void`,
      )
      const kind = claim.use === 'exploratory' ? 'Quote' : 'Bill'
      return `${kind} ${claim.id} is void: Nextech now answers it cancelled, its lines too.\n${describeLines(claim)}`
    }
    case 'void-line': {
      const id = argument(0, 'bill id')
      const sequence = argument(1, 'line number')
      const claim = await call<SandboxClaim>(
        base,
        'POST',
        `/bills/${encodeURIComponent(id)}/lines/${encodeURIComponent(sequence)}/void`,
      )
      const line = claim.items.find((item) => String(item.sequence) === sequence)
      return `Line ${sequence}${line ? ` (${line.code} ${line.text})` : ''} of bill ${claim.id} is void; the bill stays active.\n${describeLines(claim)}`
    }
    case 'correct': {
      const id = argument(0, 'bill id')
      const claim = await call<SandboxClaim>(
        base,
        'POST',
        `/bills/${encodeURIComponent(id)}/correct`,
        {
          items: readLines(tokens),
        },
      )
      return `Bill ${id} is void and bill ${claim.id} replaces it, as Nextech corrects a closed bill.\n${describeBill(claim)}`
    }
    default:
      throw new Stop(`"${command}" is no command.\n\n${USAGE}`)
  }
}

try {
  console.log(await main(process.argv.slice(2)))
} catch (error) {
  if (error instanceof Stop || (error instanceof TypeError && 'code' in error)) {
    // A Stop, or parseArgs refusing an option it does not know.
    console.error(error.message)
    process.exitCode = 1
  } else {
    throw error
  }
}
