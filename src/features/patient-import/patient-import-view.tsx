import {
  Alert,
  Button,
  Checkbox,
  Group,
  Input,
  Loader,
  NativeSelect,
  Paper,
  Progress,
  Radio,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core'
import { IconDownload, IconUpload } from '@tabler/icons-react'
import { useSelector } from '@xstate/react'
import { type ReactNode, useId, useState } from 'react'
import type { ActorRefFrom } from 'xstate'
import {
  DATE_ORDER_LABELS,
  type DateOrder,
  IMPORT_FIELD_LABELS,
  IMPORT_FIELDS,
  type ImportRejection,
  REQUIRED_IMPORT_FIELDS,
} from '#domain/patient-import.ts'
import type { patientImportMachine } from '#machines/patient-import/patient-import.machine.ts'
import {
  formatCount,
  IMPORT_STEPS,
  type PatientImportSnapshot,
  rowsText,
  selectMappingProblems,
  selectProgress,
  selectRowCount,
  selectStepIndex,
} from '#machines/patient-import/patient-import.selectors.ts'
import { AnchorLink, ButtonLink } from '#src/ui/links.tsx'

type ImportRef = ActorRefFrom<typeof patientImportMachine>

/** How many refused rows the page lists; the download holds them all. */
const LISTED_REJECTIONS = 100

const selectSelf = (snapshot: PatientImportSnapshot) => snapshot

/**
 * The patient import page: one step at a time, as the machine says. It reads the
 * snapshot and sends events; it fetches nothing and parses nothing itself.
 */
export function PatientImportView({ actorRef }: { actorRef: ImportRef }) {
  const snapshot = useSelector(actorRef, selectSelf)
  const step = selectStepIndex(snapshot)
  return (
    <Stack gap="lg">
      <Text c="dimmed" size="sm">
        Step {step + 1} of {IMPORT_STEPS.length}: {IMPORT_STEPS[step]}
      </Text>
      {(snapshot.matches('choosing') || snapshot.matches('reading')) && (
        <ChooseStep snapshot={snapshot} send={actorRef.send} />
      )}
      {snapshot.matches('mapping') && <MappingStep snapshot={snapshot} send={actorRef.send} />}
      {(snapshot.matches('checking') || snapshot.matches('reviewing')) && (
        <ReviewStep snapshot={snapshot} send={actorRef.send} />
      )}
      {(snapshot.matches('importing') ||
        snapshot.matches('failed') ||
        snapshot.matches('imported')) && <ImportStep snapshot={snapshot} send={actorRef.send} />}
    </Stack>
  )
}

type StepProps = { snapshot: PatientImportSnapshot; send: ImportRef['send'] }

/** One step of the import: its heading (h2), then what the step shows. */
function ImportStepSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        {title}
      </Title>
      {children}
    </Stack>
  )
}

function ErrorAlert({ message, title }: { message: string | null; title: string }) {
  if (!message) return null
  return (
    <Alert color="red" variant="light" role="alert" title={title}>
      {message}
    </Alert>
  )
}

function ChooseStep({ snapshot, send }: StepProps) {
  const fileId = useId()
  const [text, setText] = useState('')
  const reading = snapshot.matches('reading')
  return (
    <ImportStepSection title="Choose a CSV file">
      <Text>
        The first row names the columns: first name, last name, e-mail, phone, birth date
        (YYYY-MM-DD, MM/DD/YYYY or DD/MM/YYYY), e-mail consent and SMS consent (yes or no), and the
        points each patient brings as an opening balance. Up to 10,000 patients a file.
      </Text>
      <ErrorAlert title="This file cannot be imported" message={snapshot.context.error} />
      <Input.Wrapper
        label="CSV file"
        labelProps={{ htmlFor: fileId }}
        description="Choosing a file reads it at once."
      >
        <input
          id={fileId}
          type="file"
          accept=".csv,text/csv"
          disabled={reading}
          style={{ display: 'block', marginTop: 8, maxWidth: '100%' }}
          onChange={(event) => {
            const file = event.currentTarget.files?.[0]
            event.currentTarget.value = ''
            if (file) send({ type: 'file.choose', file, name: file.name })
          }}
        />
      </Input.Wrapper>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          send({ type: 'text.paste', text })
        }}
      >
        <Stack gap="sm">
          <Textarea
            label="Or paste the CSV text"
            description="Copy the rows from a spreadsheet saved as CSV, the header row first."
            autosize
            minRows={4}
            maxRows={12}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            disabled={reading}
            styles={{ input: { fontFamily: 'monospace' } }}
          />
          <Group>
            <Button type="submit" variant="default" loading={reading}>
              Read pasted text
            </Button>
          </Group>
        </Stack>
      </form>
      {reading && (
        <Group gap="xs" role="status">
          <Loader size="sm" aria-hidden />
          <Text>Reading the file…</Text>
        </Group>
      )}
    </ImportStepSection>
  )
}

function MappingStep({ snapshot, send }: StepProps) {
  const { context } = snapshot
  const csv = context.csv
  const problems = selectMappingProblems(context)
  if (!csv) return null
  const options = [
    { value: '', label: 'Not in the file' },
    ...csv.headers.map((header, i) => ({ value: String(i), label: header || `Column ${i + 1}` })),
  ]
  const example = csv.records[0] ?? []
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        send({ type: 'mapping.confirm' })
      }}
    >
      <ImportStepSection title="Match the columns">
        <Text>
          {csv.name}: {rowsText(selectRowCount(context))} of patients. Each field shows the column
          its header suggests; change any that is wrong.
        </Text>
        <ErrorAlert title="The rows could not be checked" message={context.error} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          {IMPORT_FIELDS.map((field) => {
            const column = context.mapping[field]
            const sample = column === null ? undefined : example[column]
            return (
              <NativeSelect
                key={field}
                label={IMPORT_FIELD_LABELS[field]}
                withAsterisk={REQUIRED_IMPORT_FIELDS.includes(field)}
                data={options}
                value={column === null ? '' : String(column)}
                description={sample ? `First row: ${sample}` : 'First row: empty'}
                error={problems[field]}
                onChange={(event) => {
                  const value = event.currentTarget.value
                  send({
                    type: 'mapping.change',
                    field,
                    column: value === '' ? null : Number(value),
                  })
                }}
              />
            )
          })}
        </SimpleGrid>
        <Group gap="sm">
          <Button type="submit">Check the rows</Button>
          <Button variant="default" onClick={() => send({ type: 'file.change' })}>
            Choose another file
          </Button>
        </Group>
      </ImportStepSection>
    </form>
  )
}

function ProgressBlock({ label, snapshot }: { label: string; snapshot: PatientImportSnapshot }) {
  const { done, total } = selectProgress(snapshot)
  const percent = total === 0 ? 0 : Math.round((done / total) * 100)
  return (
    <Stack gap={6}>
      <Progress value={percent} size="lg" aria-label={label} />
      <Text role="status" aria-live="polite">
        {label}: {formatCount(done)} of {formatCount(total)} rows
      </Text>
    </Stack>
  )
}

function Rejections({ rows, label }: { rows: ImportRejection[]; label: string }) {
  if (rows.length === 0) return null
  return (
    <Stack gap="xs">
      <Table striped verticalSpacing="xs" aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={80}>Row</Table.Th>
            <Table.Th>Reason</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.slice(0, LISTED_REJECTIONS).map((r) => (
            <Table.Tr key={r.row}>
              <Table.Td>{r.row}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                {r.reason}
                {r.patient_id !== null && (
                  <>
                    {' '}
                    <AnchorLink
                      size="sm"
                      underline="always"
                      to="/patients/$patientId"
                      params={{ patientId: String(r.patient_id) }}
                    >
                      See the existing patient
                    </AnchorLink>
                  </>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {rows.length > LISTED_REJECTIONS && (
        <Text size="sm" c="dimmed">
          And {rowsText(rows.length - LISTED_REJECTIONS)} more.
        </Text>
      )}
    </Stack>
  )
}

function ReviewStep({ snapshot, send }: StepProps) {
  const { preview } = snapshot.context
  if (snapshot.matches('checking')) {
    return (
      <ImportStepSection title="Checking the rows">
        <ProgressBlock label="Rows checked" snapshot={snapshot} />
        <Group>
          <Button variant="default" onClick={() => send({ type: 'check.cancel' })}>
            Cancel
          </Button>
        </Group>
      </ImportStepSection>
    )
  }
  return (
    <ImportStepSection title="Check the rows">
      <Stack gap={4}>
        <Text fw={600}>
          {preview.created === 1
            ? '1 patient will be created.'
            : `${formatCount(preview.created)} patients will be created.`}
        </Text>
        {preview.rejected.length > 0 && (
          <Text>
            {rowsText(preview.rejected.length)} will be skipped; the reason for each is below.
          </Text>
        )}
        {preview.alreadyImported > 0 && (
          <Text>
            {rowsText(preview.alreadyImported)} of this file{' '}
            {preview.alreadyImported === 1 ? 'was' : 'were'} imported before and will not be created
            again.
          </Text>
        )}
      </Stack>
      <OpeningBalances snapshot={snapshot} />
      <DateOrderQuestion snapshot={snapshot} send={send} />
      <Rejections rows={preview.rejected} label="Rows that will be skipped" />
      <ConsentStatement snapshot={snapshot} send={send} />
      <Group gap="sm">
        <Button
          leftSection={<IconUpload size={16} aria-hidden />}
          disabled={!snapshot.can({ type: 'import.start' })}
          onClick={() => send({ type: 'import.start' })}
        >
          Import {preview.created === 1 ? '1 patient' : `${formatCount(preview.created)} patients`}
        </Button>
        <Button variant="default" onClick={() => send({ type: 'mapping.edit' })}>
          Change the columns
        </Button>
        <Button variant="default" onClick={() => send({ type: 'file.change' })}>
          Choose another file
        </Button>
      </Group>
    </ImportStepSection>
  )
}

/** The opening balances of the rows to be created, when a column holds them. */
function OpeningBalances({ snapshot }: { snapshot: PatientImportSnapshot }) {
  const { mapping, csv, preview } = snapshot.context
  const column = mapping.opening_balance
  if (column === null) return null
  const header = csv?.headers[column] || `Column ${column + 1}`
  return (
    <Text>
      Opening balances to post: <strong>{pointsText(preview.points)}</strong>, from the column “
      {header}”, one entry “Opening balance from import” per patient created.
    </Text>
  )
}

const pointsText = (n: number) => `${formatCount(n)} point${n === 1 ? '' : 's'}`

/**
 * Which way the dates are written: said when the file's dates decide it, asked when
 * every date could be read both ways; nothing is imported until the person answers.
 */
function DateOrderQuestion({ snapshot, send }: StepProps) {
  const { dates, dateOrder, dateOrderChosen } = snapshot.context
  if (dates.kind === 'none') return null
  if (dates.kind === 'decided') {
    return <Text>Dates read as {DATE_ORDER_LABELS[dates.order]}.</Text>
  }
  // A question the import waits for: set apart from the counts around it.
  return (
    <Paper withBorder p="md" radius="md">
      <Radio.Group
        label="How are the dates in this file written?"
        description={`Every date in this file, such as ${dates.example}, can be read either way. Please choose before importing.`}
        value={dateOrderChosen ? dateOrder : null}
        onChange={(value) => send({ type: 'dates.choose', order: value as DateOrder })}
      >
        <Stack gap="xs" mt="xs">
          <Radio value="mdy" label="Month/day/year (US)" />
          <Radio value="dmy" label="Day/month/year" />
        </Stack>
      </Radio.Group>
    </Paper>
  )
}

/**
 * Marketing consent: a file's own e-mail consent column decides row by row (an empty
 * cell is no); a file without one is imported unsubscribed unless the importer states, for the
 * whole file, that every patient agreed. The statement is logged with who and when.
 */
function ConsentStatement({ snapshot, send }: StepProps) {
  const { mapping, csv, emailConsentStated } = snapshot.context
  const column = mapping.email_subscription
  if (column !== null) {
    const header = csv?.headers[column] || `Column ${column + 1}`
    return (
      <Text size="sm">
        E-mail consent comes from the column “{header}” of each row; a row without a yes is imported
        without consent to marketing e-mail.
      </Text>
    )
  }
  return (
    <Checkbox
      label="Every patient in this file agreed to receive marketing e-mail from the practice"
      description="This file has no e-mail consent column. Unticked, the patients are imported without consent: no offers, reminders or statements by e-mail. Ticked, your name and the time are recorded in the activity log."
      checked={emailConsentStated}
      onChange={(event) => send({ type: 'consent.state', stated: event.currentTarget.checked })}
    />
  )
}

function ImportStep({ snapshot, send }: StepProps) {
  const { result, stopped, error, retryable } = snapshot.context
  if (!snapshot.matches('imported')) {
    const failed = snapshot.matches('failed')
    return (
      <ImportStepSection title="Importing the patients">
        <ProgressBlock label="Rows imported" snapshot={snapshot} />
        {failed && (
          <Alert color="red" variant="light" role="alert" title="The import paused">
            {error} The patients imported so far stay imported
            {retryable ? '; trying again continues where it stopped.' : '.'}
          </Alert>
        )}
        <Group gap="sm">
          {failed && retryable && (
            <Button onClick={() => send({ type: 'import.retry' })}>Try again</Button>
          )}
          <Button variant="default" onClick={() => send({ type: 'import.stop' })}>
            Stop the import
          </Button>
        </Group>
      </ImportStepSection>
    )
  }
  return (
    <ImportStepSection title={stopped ? 'Import stopped' : 'Import finished'}>
      <Stack gap={4} role="status">
        <Text fw={600}>
          {result.created === 1
            ? '1 patient created.'
            : `${formatCount(result.created)} patients created.`}
        </Text>
        {snapshot.context.mapping.opening_balance !== null && (
          <Text>{pointsText(result.points)} posted as opening balances.</Text>
        )}
        {result.rejected.length > 0 && (
          <Text>{rowsText(result.rejected.length)} rejected; the reason for each is below.</Text>
        )}
        {result.alreadyImported > 0 && (
          <Text>{rowsText(result.alreadyImported)} skipped: imported from this file before.</Text>
        )}
        {stopped && (
          <Text>
            The rest of the file was not imported. Importing the same file again creates only the
            patients not yet created.
          </Text>
        )}
      </Stack>
      <Rejections rows={result.rejected} label="Rejected rows" />
      <Group gap="sm">
        {result.rejected.length > 0 && (
          <Button
            leftSection={<IconDownload size={16} aria-hidden />}
            onClick={() => send({ type: 'rejected.download' })}
          >
            Download rejected rows
          </Button>
        )}
        <Button variant="default" onClick={() => send({ type: 'file.change' })}>
          Import another file
        </Button>
        <ButtonLink variant="subtle" to="/patients">
          Go to the patient list
        </ButtonLink>
      </Group>
    </ImportStepSection>
  )
}
