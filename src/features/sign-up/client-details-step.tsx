import { Button, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useSelector } from '@xstate/react'
import { useEffect, useRef, useState } from 'react'
import * as v from 'valibot'
import {
  DEFAULT_PHONE_COUNTRY_CODE,
  PHONE_COUNTRY_CODES,
  POSITIONS,
  TITLES,
} from '#domain/fields.ts'
import { type ClientDetailsInput, ClientDetailsSchema } from '#domain/sign-up/client-details.ts'
import {
  selectPhoneVerificationRef,
  selectVerifiedPhone,
} from '#machines/sign-up/sign-up.selectors.ts'
import { maskPhone } from '#src/lib/masks.ts'
import {
  EmailField,
  FormFields,
  type PasswordFieldSpec,
  type TextFieldSpec,
} from '#src/ui/form-fields.tsx'
import { lockedProps } from '#src/ui/locked.tsx'
import { PasswordField } from '#src/ui/password-field.tsx'
import { PhoneVerificationFields } from '#src/ui/phone-verification-fields.tsx'
import { type SignUpActorRef, StepForm, StepHeading } from './form-helpers.tsx'

/** What the field the server found taken says (the server's own words). */
const TAKEN_MESSAGES = {
  email: 'Email is already taken.',
  phone: 'Phone number is already taken.',
} as const

const NAME_FIELDS: TextFieldSpec<keyof ClientDetailsInput>[] = [
  { path: 'name', label: 'First name', autoComplete: 'given-name' },
  { path: 'last_name', label: 'Last name', autoComplete: 'family-name' },
]

const PASSWORD_FIELDS: PasswordFieldSpec<keyof ClientDetailsInput>[] = [
  { path: 'password', label: 'Password' },
  { path: 'password_confirm', label: 'Confirm password' },
]

/** Props of a step view. */
export type StepProps = {
  actorRef: SignUpActorRef
  /** Focus the step heading when it appears (the wizard moved here). */
  focusHeading: boolean
}

function initialValues(actorRef: SignUpActorRef): ClientDetailsInput {
  const draft = actorRef.getSnapshot().context.drafts.clientDetails
  return {
    title: draft.title ?? '',
    name: draft.name ?? '',
    last_name: draft.last_name ?? '',
    country_code:
      (draft.country_code as ClientDetailsInput['country_code']) ?? DEFAULT_PHONE_COUNTRY_CODE,
    phone: draft.phone ?? '',
    email: draft.email ?? '',
    password: draft.password ?? '',
    password_confirm: draft.password_confirm ?? '',
    position: (draft.position as ClientDetailsInput['position']) ?? ('' as never),
  }
}

/**
 * Step 1, Client Information: the person who signs up (title, names, phone with its country code,
 * e-mail, password twice, position) and the phone verification by SMS code. The values go to the
 * machine as drafts while typing; Continue sends the validated step.
 */
export function ClientDetailsStep({ actorRef, focusHeading }: StepProps) {
  const verificationRef = useSelector(actorRef, selectPhoneVerificationRef)
  const verifiedPhone = useSelector(actorRef, selectVerifiedPhone)
  const phoneLocked = useSelector(
    verificationRef,
    (s) => s === undefined || !(s.matches('idle') || s.matches('codeSent')),
  )
  const [initial] = useState(() => initialValues(actorRef))

  const form = useForm<ClientDetailsInput>({
    mode: 'controlled',
    initialValues: initial,
    validate: schemaResolver(ClientDetailsSchema, { sync: true }),
    validateInputOnBlur: true,
    onValuesChange: (values) => {
      actorRef.send({ type: 'form.draft', step: 'clientDetails', values })
      // Get Code needs every field of the step valid; the verification follows the form.
      actorRef.getSnapshot().children.phoneVerification?.send({
        type: 'fields.change',
        valid: v.is(ClientDetailsSchema, values),
        target: { email: values.email, phone: values.phone, countryCode: values.country_code },
      })
    },
  })
  const locked = verifiedPhone !== null || phoneLocked

  // The verification belongs to the phone: the e-mail stays editable. When Continue
  // finds the e-mail or the phone taken, that field says so (the alert keeps the spec's text).
  const takenField = useSelector(actorRef, (s) => s.context.takenField)
  const setError = useRef(form.setFieldError)
  setError.current = form.setFieldError
  useEffect(() => {
    if (takenField) setError.current(takenField, TAKEN_MESSAGES[takenField])
  }, [takenField])

  // "Use another number" starts a new verification: it learns the form's values at once, so Get
  // Code is ready as soon as the new number is typed.
  const getValues = useRef(form.getValues)
  getValues.current = form.getValues
  const firstVerification = useRef(verificationRef)
  useEffect(() => {
    if (verificationRef === firstVerification.current) return
    firstVerification.current = verificationRef
    const values = getValues.current()
    verificationRef?.send({
      type: 'fields.change',
      valid: v.is(ClientDetailsSchema, values),
      target: { email: values.email, phone: values.phone, countryCode: values.country_code },
    })
  }, [verificationRef])

  return (
    <StepForm
      form={form}
      onContinue={(values) =>
        actorRef.send({
          type: 'clientDetails.continue',
          values: v.parse(ClientDetailsSchema, values),
        })
      }
    >
      <Stack gap="md">
        <StepHeading focusOnMount={focusHeading}>Client Information</StepHeading>
        <Text size="sm" c="dimmed">
          Tell us who you are. We text a code to your phone to confirm it.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <Select
            label="Title"
            placeholder="Choose"
            data={[...TITLES]}
            clearable
            {...form.getInputProps('title')}
            value={form.values.title || null}
            onChange={(value) => form.setFieldValue('title', value ?? '')}
          />
          <FormFields form={form} common={{ withAsterisk: true }} fields={NAME_FIELDS} />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <Select
            label="Country code"
            data={PHONE_COUNTRY_CODES.map((code) => ({
              value: code,
              label: `${code} (US, Canada)`,
            }))}
            allowDeselect={false}
            {...form.getInputProps('country_code')}
            {...lockedProps(locked)}
          />
          <TextInput
            label="Phone number"
            withAsterisk
            type="tel"
            inputMode="tel"
            autoComplete="tel-national"
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('phone')}
            {...lockedProps(locked)}
            onChange={(event) => form.setFieldValue('phone', maskPhone(event.currentTarget.value))}
          />
          <EmailField autoComplete="email" {...form.getInputProps('email')} />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <FormFields
            form={form}
            component={PasswordField}
            common={{ withAsterisk: true, autoComplete: 'new-password' }}
            fields={PASSWORD_FIELDS}
          />
          <Select
            label="Position"
            allowDeselect={false}
            withAsterisk
            placeholder="Choose"
            data={[...POSITIONS]}
            errorProps={{ role: 'alert' }}
            {...form.getInputProps('position')}
            value={form.values.position || null}
            onChange={(value) =>
              form.setFieldValue('position', (value ?? '') as ClientDetailsInput['position'])
            }
          />
        </SimpleGrid>
        {takenField === 'phone' && (
          <Group gap="sm">
            <Text size="sm">This phone number already has an account.</Text>
            <Button
              variant="light"
              size="compact-sm"
              onClick={() => {
                actorRef.send({ type: 'phone.change' })
                form.clearFieldError('phone')
                form.getInputNode('phone')?.focus()
              }}
            >
              Use another number
            </Button>
          </Group>
        )}
        <PhoneVerificationFields actorRef={verificationRef} verified={verifiedPhone !== null} />
      </Stack>
    </StepForm>
  )
}
