import { createFileRoute } from '@tanstack/react-router'
import { HTTPError } from 'ky'
import { useEffect, useState } from 'react'
import { unsubscribePatient } from '#src/api/patients.ts'
import {
  type UnsubscribeOutcome,
  UnsubscribeView,
} from '#src/features/unsubscribe/unsubscribe-view.tsx'
import { apiErrorMessage } from '#src/lib/http.ts'

const INVALID_LINK = 'This unsubscribe link is not valid or has expired.'

/** The call under way per link: a second render of the page (strict mode) does not repeat it. */
const calls = new Map<string, Promise<NonNullable<UnsubscribeOutcome>>>()

async function unsubscribe(id: string): Promise<NonNullable<UnsubscribeOutcome>> {
  try {
    await unsubscribePatient(id)
    return { ok: true }
  } catch (error) {
    const status = error instanceof HTTPError ? error.response.status : 0
    if (status === 404 || status === 400) return { ok: false, message: INVALID_LINK }
    return { ok: false, message: await apiErrorMessage(error) }
  }
}

export const Route = createFileRoute('/unsubscribe/$id')({
  // Opening the link is the action (spec section 2). The page renders at once, without waiting
  // for the call (its prerendered first paint stays as it is), and shows the outcome when it
  // comes: never a blank page.
  component: UnsubscribePage,
})

function UnsubscribePage() {
  const { id } = Route.useParams()
  const [outcome, setOutcome] = useState<UnsubscribeOutcome>(null)
  useEffect(() => {
    let current = true
    setOutcome(null)
    let call = calls.get(id)
    if (!call) {
      call = unsubscribe(id).finally(() => calls.delete(id))
      calls.set(id, call)
    }
    void call.then((result) => {
      if (current) setOutcome(result)
    })
    return () => {
      current = false
    }
  }, [id])
  return <UnsubscribeView outcome={outcome} />
}
