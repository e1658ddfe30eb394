import { Alert, Button, Group, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import type { NextechBackfill } from '#domain/nextech.ts'
import { pointsText } from '#domain/points.ts'
import { formatDate } from '#src/lib/format.ts'
import { useAction } from '#src/lib/use-action.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { NextechPart, plural } from './nextech-shared.tsx'
import type { NextechSyncCalls } from './nextech-sync.actors.ts'

const NOTHING_WAITING = 'No bill before that day is waiting for points.'

/** What a preview found, in words: "2 bills of 1 patient, 350 points." */
export function previewInWords(answer: NextechBackfill): string {
  if (answer.bills === 0) return NOTHING_WAITING
  return `${plural(answer.bills, 'bill')} of ${plural(answer.patients, 'patient')}, ${pointsText(answer.points)}.`
}

/** What an award did, in words: "Awarded 350 points for 2 bill lines." */
export function awardInWords(answer: NextechBackfill): string {
  if (!answer.applied || answer.lines === 0) return NOTHING_WAITING
  return `Awarded ${pointsText(answer.points)} for ${plural(answer.lines, 'bill line')}.`
}

/** The day bills earn from (YYYY-MM-DD), once an answer told it; null until then. */
function awardDayOf(awarded: NextechBackfill | null, preview: NextechBackfill | null) {
  if (awarded) return awarded.applied ? awarded.since : awarded.award_from
  return preview?.award_from ?? null
}

/**
 * Older bills (Admin, connected): synced bills earn from the day the practice connected; this
 * previews what the bills from a chosen first day up to then would earn, then awards them. The
 * award is offered only for the day just previewed; a refusal shows under the buttons and the
 * chosen day stays.
 */
export function NextechOlderBills({ calls }: { calls: NextechSyncCalls }) {
  const action = useAction()
  const [since, setSince] = useState('')
  const [missing, setMissing] = useState(false)
  const [doing, setDoing] = useState<'preview' | 'award' | null>(null)
  // The last preview and the day it was asked for: an answer for another day is not offered.
  const [preview, setPreview] = useState<{ day: string; answer: NextechBackfill } | null>(null)
  const [awarded, setAwarded] = useState<NextechBackfill | null>(null)
  const current = preview && preview.day === since ? preview.answer : null
  const awardDay = awardDayOf(awarded, preview?.answer ?? null)

  const previewBills = async () => {
    if (since === '') {
      setMissing(true)
      return
    }
    const day = since
    setPreview(null)
    setAwarded(null)
    setDoing('preview')
    let answer: NextechBackfill | undefined
    await action.run(
      async () => {
        answer = await calls.backfill({ since: day, preview: true })
      },
      { invalidate: false },
    )
    setDoing(null)
    if (answer) setPreview({ day, answer })
  }

  const award = async () => {
    if (!current) return
    const day = since
    setDoing('award')
    let answer: NextechBackfill | undefined
    await action.run(async () => {
      answer = await calls.backfill({ since: day })
    })
    setDoing(null)
    if (answer) {
      setAwarded(answer)
      setPreview(null)
    }
  }

  return (
    <NextechPart id="nextech-backfill" title="Older bills">
      <Text size="sm">
        Bills from Nextech earn points from{' '}
        {awardDay ? formatDate(`${awardDay}T12:00:00Z`) : 'the day the practice connected'}. To
        award bills made before that, choose the first day and preview what they earn.
      </Text>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          type="date"
          label="First day to award"
          value={since}
          onChange={(event) => {
            setSince(event.currentTarget.value)
            setMissing(false)
            action.reset()
          }}
          error={missing ? 'Choose the first day whose bills should earn.' : undefined}
          w={{ base: '100%', xs: 220 }}
        />
        <Button
          variant="default"
          onClick={() => void previewBills()}
          loading={doing === 'preview'}
          disabled={doing === 'award'}
        >
          Preview
        </Button>
        {current && current.points > 0 && (
          <Button
            onClick={() => void award()}
            loading={doing === 'award'}
            disabled={doing === 'preview'}
          >
            Award {pointsText(current.points)}
          </Button>
        )}
      </Group>
      {current && (
        <Text size="sm" role="status">
          {previewInWords(current)}
        </Text>
      )}
      {awarded && (
        <Alert color="green" role="status">
          {awardInWords(awarded)}
        </Alert>
      )}
      <FailureAlert>{action.error}</FailureAlert>
    </NextechPart>
  )
}
