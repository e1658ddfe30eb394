import { Badge, Button, Checkbox, Group, Paper, Select, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { NextechServiceCode } from '#domain/nextech.ts'
import { useAction } from '#src/lib/use-action.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { LoadFailure, type NextechList, NextechPart, plural } from './nextech-shared.tsx'
import type { CatalogueChoice, NextechSyncCalls } from './nextech-sync.actors.ts'

const KIND_NAMES = { procedure: 'procedure', product: 'product' } as const

/** The value of a catalogue item in the picker: its kind and its id (`procedure:3`). */
const choiceValue = (item: { kind: 'procedure' | 'product'; id: number }) =>
  `${item.kind}:${item.id}`

/** The picker's options: the procedures, then the products, each under its own label. */
function pickerData(catalogue: CatalogueChoice[]) {
  const group = (kind: 'procedure' | 'product', label: string) => ({
    group: label,
    items: catalogue
      .filter((item) => item.kind === kind)
      .map((item) => ({ value: choiceValue(item), label: item.name })),
  })
  return [group('procedure', 'Procedures'), group('product', 'Products')].filter(
    (g) => g.items.length > 0,
  )
}

/**
 * The service codes of synced bills (Admin): the unmapped ones first, each with its text and how
 * many bill lines carry it, a picker of the catalogue and "Also re-price the bills already
 * synced", saved one code at a time. After a save the list is what the server answered.
 */
export function NextechServiceCodes({
  list,
  catalogue,
  calls,
}: {
  list: NextechList<NextechServiceCode[]>
  catalogue: NextechList<CatalogueChoice[]>
  calls: NextechSyncCalls
}) {
  const codes = list.value
  const unmapped = codes?.filter((code) => code.mapped_to === null).length ?? 0
  return (
    <NextechPart id="nextech-codes" title="Unmapped service codes">
      {list.error && <LoadFailure message={list.error} onRetry={list.retry} />}
      {catalogue.error && <LoadFailure message={catalogue.error} onRetry={catalogue.retry} />}
      {codes === null ? (
        !list.error && (
          <Text size="sm" c="dimmed">
            Loading the service codes…
          </Text>
        )
      ) : (
        <>
          <Text size="sm" c="dimmed">
            {unmapped === 0
              ? 'Every service code is mapped.'
              : `${plural(unmapped, 'service code')} of synced bills ${unmapped === 1 ? 'has' : 'have'} no catalogue item: their lines earn points from the price.`}
          </Text>
          {codes.length > 0 && (
            <Stack gap="sm">
              {codes.map((code) => (
                <CodeRow
                  key={code.code}
                  code={code}
                  catalogue={catalogue.value}
                  calls={calls}
                  onCodes={list.setValue}
                />
              ))}
            </Stack>
          )}
        </>
      )}
    </NextechPart>
  )
}

function CodeRow({
  code,
  catalogue,
  calls,
  onCodes,
}: {
  code: NextechServiceCode
  catalogue: CatalogueChoice[] | null
  calls: NextechSyncCalls
  onCodes: (codes: NextechServiceCode[]) => void
}) {
  const action = useAction()
  const [choice, setChoice] = useState<string | null>(code.mapped_to && choiceValue(code.mapped_to))
  const [reprice, setReprice] = useState(false)
  const [missing, setMissing] = useState(false)

  const save = async () => {
    const item = catalogue?.find((entry) => choiceValue(entry) === choice)
    if (!item) {
      setMissing(true)
      return
    }
    let codes: NextechServiceCode[] | undefined
    await action.run(async () => {
      codes = await calls.mapCode(code.code, {
        catalogue_item_id: item.id,
        kind: item.kind,
        apply_to_synced: reprice,
      })
    })
    if (codes) onCodes(codes)
  }

  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      component="article"
      aria-label={`Service code ${code.code}`}
    >
      <Stack gap="xs">
        <Group gap="xs" justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={0} miw={0}>
            <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
              {code.code}
              {code.text ? ` · ${code.text}` : ''}
            </Text>
            <Text size="sm" c="dimmed">
              {plural(code.lines, 'bill line')}
            </Text>
            {code.mapped_to && (
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                Mapped to {code.mapped_to.name} ({KIND_NAMES[code.mapped_to.kind]})
              </Text>
            )}
          </Stack>
          <Badge
            variant="light"
            // Mantine's light yellow and orange are too pale to read (WCAG AA).
            color={code.mapped_to ? 'green' : 'gray'}
            style={{ flexShrink: 0 }}
          >
            {code.mapped_to ? 'Mapped' : 'Unmapped'}
          </Badge>
        </Group>
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select
            label="Catalogue item"
            aria-label={`Catalogue item for ${code.code}`}
            placeholder={catalogue ? 'Choose a procedure or product' : 'Loading the catalogue…'}
            data={catalogue ? pickerData(catalogue) : []}
            disabled={!catalogue}
            searchable
            nothingFoundMessage="No procedure or product by that name"
            value={choice}
            onChange={(next) => {
              setChoice(next)
              setMissing(false)
            }}
            error={missing ? 'Choose the procedure or product this code is.' : undefined}
            w={{ base: '100%', sm: 320 }}
          />
          <Checkbox
            label="Also re-price the bills already synced"
            checked={reprice}
            onChange={(event) => setReprice(event.currentTarget.checked)}
            mb={{ base: 0, sm: 8 }}
          />
          <Button
            size="sm"
            onClick={() => void save()}
            loading={action.pending}
            aria-label={`Save ${code.code}`}
          >
            Save
          </Button>
        </Group>
        <FailureAlert>{action.error}</FailureAlert>
      </Stack>
    </Paper>
  )
}
