import { Checkbox, SimpleGrid, Stack, TextInput, type TextInputProps } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useState } from 'react'
import * as v from 'valibot'
import { formatPhone, toE164 } from '#domain/phone.ts'
import { PATIENT_PHONE_MESSAGE, type Patient, type PatientInput } from '#domain/practice-data.ts'
import { AppModal } from '#src/ui/app-modal.tsx'
import { DialogActions } from '#src/ui/dialog-actions.tsx'
import { type FieldSpec, FormFields } from '#src/ui/form-fields.tsx'
import { AnchorLink } from '#src/ui/links.tsx'

/** What the form sends: the patient's contact details and consents. */
export type PatientFormValues = {
  first_name: string
  last_name: string
  email: string
  phone: string
  birth_date: string
  email_subscription: boolean
  sms_subscription: boolean
}

/** A failed save: the sentence to show and, for a duplicate, the patient who already has it. */
export type SaveFailure = { message: string; existingPatientId?: number | undefined }

/** The form's rules: the API's schema, with empty optional fields read as "none". */
const FormSchema = v.pipe(
  v.object({
    first_name: v.pipe(v.string(), v.trim(), v.nonEmpty('Please enter the first name.')),
    last_name: v.pipe(v.string(), v.trim(), v.nonEmpty('Please enter the last name.')),
    email: v.string(),
    phone: v.string(),
    birth_date: v.string(),
    email_subscription: v.boolean(),
    sms_subscription: v.boolean(),
  }),
  v.forward(
    v.check(
      (input) =>
        input.email.trim() === '' || v.is(v.pipe(v.string(), v.trim(), v.email()), input.email),
      'Please enter a valid e-mail address.',
    ),
    ['email'],
  ),
  v.forward(
    v.check(
      (input) => input.phone.trim() === '' || toE164(input.phone) !== null,
      PATIENT_PHONE_MESSAGE,
    ),
    ['phone'],
  ),
  v.forward(
    v.check(
      (input) =>
        input.birth_date === '' ||
        (/^\d{4}-\d{2}-\d{2}$/.test(input.birth_date) &&
          input.birth_date <= new Date().toISOString().slice(0, 10)),
      'Please enter a birth date in the past.',
    ),
    ['birth_date'],
  ),
)

/** The body the API takes, from the form's values (empty optional fields become null). */
export function toPatientInput(values: PatientFormValues): PatientInput {
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim())
  return {
    first_name: values.first_name.trim(),
    last_name: values.last_name.trim(),
    email: orNull(values.email),
    phone: orNull(values.phone),
    birth_date: orNull(values.birth_date),
    email_subscription: values.email_subscription,
    sms_subscription: values.sms_subscription,
  }
}

const EMPTY: PatientFormValues = {
  first_name: '',
  last_name: '',
  email: '',
  phone: '',
  birth_date: '',
  email_subscription: true,
  sms_subscription: false,
}

/** The form's starting values for an existing patient. */
export function valuesOf(patient: Patient): PatientFormValues {
  return {
    first_name: patient.first_name,
    last_name: patient.last_name,
    email: patient.email ?? '',
    // Shown as people write it; the server stores whatever common writing is saved as E.164.
    phone: formatPhone(patient.phone),
    birth_date: patient.birth_date ?? '',
    email_subscription: patient.email_subscription,
    sms_subscription: patient.sms_subscription,
  }
}

/** The patient's text fields; the browser must not fill them in with the signed-in user's own. */
const PATIENT_FIELDS: FieldSpec<
  keyof PatientFormValues,
  TextInputProps & { 'data-autofocus'?: boolean }
>[] = [
  {
    path: 'first_name',
    label: 'First name',
    required: true,
    autoComplete: 'off',
    'data-autofocus': true,
  },
  { path: 'last_name', label: 'Last name', required: true, autoComplete: 'off' },
  { path: 'email', label: 'E-mail', type: 'email', autoComplete: 'off' },
  {
    path: 'phone',
    label: 'Phone',
    type: 'tel',
    autoComplete: 'off',
    description: 'With the area code, like (408) 555-4743',
    // The hint under the field, so the Phone and E-mail fields line up side by side.
    inputWrapperOrder: ['label', 'input', 'description', 'error'],
  },
  { path: 'birth_date', label: 'Birth date', type: 'date' },
]

/**
 * "Add patient" and "Edit details" in a dialog. A refused save keeps every value typed and says
 * why; a duplicate links to the patient who already has that e-mail or phone.
 */
export function PatientFormModal({
  opened,
  title,
  submitLabel,
  initial = EMPTY,
  onClose,
  onSave,
}: {
  opened: boolean
  title: string
  submitLabel: string
  initial?: PatientFormValues
  onClose: () => void
  /** Saves; resolves with a failure to show, or nothing when saved. */
  onSave: (values: PatientFormValues) => Promise<SaveFailure | undefined>
}) {
  return (
    <AppModal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={opened}
      onClose={onClose}
      title={title}
      size="lg"
    >
      {/* Mounted only while open, so each opening starts from `initial`. */}
      {opened && (
        <PatientForm
          submitLabel={submitLabel}
          initial={initial}
          onCancel={onClose}
          onSave={onSave}
        />
      )}
    </AppModal>
  )
}

function PatientForm({
  submitLabel,
  initial,
  onCancel,
  onSave,
}: {
  submitLabel: string
  initial: PatientFormValues
  onCancel: () => void
  onSave: (values: PatientFormValues) => Promise<SaveFailure | undefined>
}) {
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<SaveFailure>()
  const form = useForm<PatientFormValues>({
    mode: 'uncontrolled',
    initialValues: initial,
    validate: schemaResolver(FormSchema, { sync: true }),
  })
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (values) => {
        setBusy(true)
        setFailure(undefined)
        try {
          setFailure(await onSave(values))
        } finally {
          setBusy(false)
        }
      })}
    >
      <Stack gap="md">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <FormFields form={form} component={TextInput} fields={PATIENT_FIELDS} />
        </SimpleGrid>
        <Checkbox
          label="Agrees to receive e-mail (offers, points reminders)"
          key={form.key('email_subscription')}
          {...form.getInputProps('email_subscription', { type: 'checkbox' })}
        />
        <Checkbox
          label="Agrees to receive text messages"
          key={form.key('sms_subscription')}
          {...form.getInputProps('sms_subscription', { type: 'checkbox' })}
        />
        <DialogActions
          failure={
            failure && (
              <>
                {failure.message}{' '}
                {failure.existingPatientId !== undefined && (
                  <AnchorLink
                    to="/patients/$patientId"
                    params={{ patientId: String(failure.existingPatientId) }}
                    fw={600}
                  >
                    Open the existing patient
                  </AnchorLink>
                )}
              </>
            )
          }
          busy={busy}
          actionLabel={submitLabel}
          onCancel={onCancel}
        />
      </Stack>
    </form>
  )
}
