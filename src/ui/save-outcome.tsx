import { Alert, Button, Group } from '@mantine/core'
import { useState } from 'react'

/** What a form's last save came to: saved (a status) or refused (an alert), in one sentence. */
export type SaveOutcome = { ok: boolean; message: string }

/**
 * The state of a form that saves in place (Settings, My Profile): whether a save is under way and
 * what the last one came to. `save` runs one: `work` answers the refusal's sentence, or nothing
 * when it saved, and then `onSaved` runs and `saved` is said.
 */
export function useSaveOutcome() {
  const [saving, setSaving] = useState(false)
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null)
  const save = async (
    work: () => Promise<string | undefined>,
    saved: string,
    onSaved?: () => void,
  ) => {
    setSaving(true)
    setOutcome(null)
    const failure = await work()
    setSaving(false)
    if (failure) {
      setOutcome({ ok: false, message: failure })
      return
    }
    onSaved?.()
    setOutcome({ ok: true, message: saved })
  }
  return { saving, outcome, save }
}

/** The last save's sentence, when there is one. */
export function SaveOutcomeAlert({ outcome }: { outcome: SaveOutcome | null }) {
  if (!outcome) return null
  return (
    <Alert color={outcome.ok ? 'green' : 'red'} role={outcome.ok ? 'status' : 'alert'}>
      {outcome.message}
    </Alert>
  )
}

/** The foot of a form that saves in place: its submit button, at the end. */
export function SaveButton({
  saving,
  disabled,
  children,
}: {
  saving: boolean
  disabled?: boolean
  children: string
}) {
  return (
    <Group justify="flex-end">
      <Button type="submit" loading={saving} disabled={disabled}>
        {children}
      </Button>
    </Group>
  )
}
