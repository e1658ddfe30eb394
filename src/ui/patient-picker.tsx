import { Loader, Select } from '@mantine/core'
import { useDebouncedCallback } from '@mantine/hooks'
import { useRef, useState } from 'react'
import { formatPhone } from '#domain/phone.ts'

/** A patient as a picker offers it: the id and the words shown (name, and phone when known). */
export type PatientChoice = { id: number; label: string }

/** A found patient as a choice: "Avery Johnson · (555) 010-1001", the phone formatted. */
export function patientChoice(patient: {
  id: number
  first_name: string
  last_name: string
  phone: string | null
}): PatientChoice {
  const name = `${patient.first_name} ${patient.last_name}`
  return { id: patient.id, label: patient.phone ? `${name} · ${formatPhone(patient.phone)}` : name }
}

/**
 * Finds a patient by asking the server as the user types (name, e-mail or phone), never by
 * loading the practice's whole patient table. `search` is the route's call (one small page of
 * matches); the view keeps only the last answer, so a slow earlier answer cannot replace it.
 */
export function PatientPicker({
  label = 'Patient',
  placeholder = 'Type a name, e-mail or phone',
  value,
  onChange,
  search,
  error,
  maw = 360,
  autoFocus = false,
}: {
  label?: string
  placeholder?: string
  value: PatientChoice | null
  onChange: (patient: PatientChoice | null) => void
  search: (term: string) => Promise<PatientChoice[]>
  error?: string | undefined
  maw?: number
  /** The field a dialog focuses when it opens (Mantine's `data-autofocus`). */
  autoFocus?: boolean
}) {
  const [found, setFound] = useState<PatientChoice[]>([])
  const [searching, setSearching] = useState(false)
  const [failed, setFailed] = useState(false)
  const [typed, setTyped] = useState(false)
  const latest = useRef(0)
  const find = useDebouncedCallback(async (term: string) => {
    const ticket = ++latest.current
    if (term.trim() === '' || term === value?.label) {
      setSearching(false)
      return
    }
    setSearching(true)
    try {
      const next = await search(term.trim())
      if (ticket !== latest.current) return
      setFound(next)
      setFailed(false)
    } catch {
      if (ticket === latest.current) setFailed(true)
    } finally {
      if (ticket === latest.current) setSearching(false)
    }
  }, 250)

  const choices = value && !found.some((p) => p.id === value.id) ? [value, ...found] : found
  return (
    <Select
      label={label}
      placeholder={placeholder}
      searchable
      clearable
      maw={maw}
      data={choices.map((p) => ({ value: String(p.id), label: p.label }))}
      // The server already matched the term (phone digits too): show its answer as it is.
      filter={({ options }) => options}
      value={value ? String(value.id) : null}
      onChange={(id) => onChange(choices.find((p) => String(p.id) === id) ?? null)}
      onSearchChange={(term) => {
        setTyped(term.trim() !== '' && term !== value?.label)
        void find(term)
      }}
      rightSection={searching ? <Loader size="xs" aria-label="Searching" /> : undefined}
      nothingFoundMessage={
        failed
          ? 'The search did not answer. Type again to retry.'
          : typed && !searching
            ? 'No patient matches'
            : 'Type a name, e-mail or phone'
      }
      error={error}
      data-autofocus={autoFocus || undefined}
    />
  )
}
