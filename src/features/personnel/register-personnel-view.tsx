import {
  Box,
  Button,
  Center,
  Group,
  Loader,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { IconCircleCheck } from '@tabler/icons-react'
import { useSelector } from '@xstate/react'
import { useState } from 'react'
import * as v from 'valibot'
import type { ActorRefFrom } from 'xstate'
import {
  ConfirmCodeSchema,
  firstIssue,
  PHONE_COUNTRY_CODES,
  PhoneCountryCodeSchema,
  TITLES,
} from '#domain/fields.ts'
import {
  type InvitationClosedError,
  PERSONNEL_MESSAGES,
  type RegistrationDetails,
  RegistrationDetailsSchema,
  registrationFormValues,
} from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import type { registerPersonnelMachine } from '#machines/personnel/register-personnel.machine.ts'
import {
  selectPhoneVerificationRef,
  selectRegistrationFlags,
} from '#machines/personnel/register-personnel.selectors.ts'
import { env, isCaptchaOff } from '#src/lib/env.ts'
import { setGetCodeCaptchaToken } from '#src/lib/get-code-captcha.ts'
import { CaptchaField } from '#src/ui/captcha-field.tsx'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { FormFields, type PasswordFieldSpec, type TextFieldSpec } from '#src/ui/form-fields.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { lockedProps } from '#src/ui/locked.tsx'
import { PasswordField } from '#src/ui/password-field.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'

/** The registration's actor, as the route starts it. */
export type RegisterPersonnelActorRef = ActorRefFrom<typeof registerPersonnelMachine>

/** The form's fields: the details without the code (the phone verification holds the code). */
type DetailsForm = Omit<ReturnType<typeof registrationFormValues>, 'confirmCode'>

const NAME_FIELDS: TextFieldSpec<keyof DetailsForm>[] = [
  { path: 'firstName', label: 'First name', autoComplete: 'given-name', name: 'firstName' },
  { path: 'lastName', label: 'Last name', autoComplete: 'family-name', name: 'lastName' },
]

const PASSWORD_FIELDS: PasswordFieldSpec<keyof DetailsForm>[] = [
  { path: 'password', label: 'Password', name: 'password' },
  {
    path: 'password_confirm',
    label: 'Confirm password',
    description: 'Please retype your password',
    name: 'password_confirm',
  },
]

/** Texts of this screen that are ours (the spec gives the labels only). */
export const REGISTRATION_TEXTS = {
  loading: 'Opening your invitation…',
  registered: 'Taking you to Sign In…',
  phoneVerified: 'Phone number verified',
  resendWait: 'You can ask for a new code 30 seconds after the last one.',
  fillFormFirst: 'Fill in every field above to get a code by SMS.',
} as const

/**
 * The personnel registration screen: title 'Registration', section 'Registration
 * Details', the invitation's names (editable), e-mail and position (fixed), phone with Get Code,
 * the confirmation code with Verify Code, passwords, Back to Sign In and Submit. Every disabled
 * state comes from the machines (`selectRegistrationFlags`).
 */
export function RegisterPersonnelView({ actorRef }: { actorRef: RegisterPersonnelActorRef }) {
  const invitation = useSelector(actorRef, (s) => s.context.invitation)
  const phase = useSelector(actorRef, (s) =>
    s.matches('registered')
      ? 'registered'
      : s.matches('editing') || s.matches('submitting')
        ? 'form'
        : 'loading',
  )
  if (phase === 'form' && invitation) {
    return <RegistrationForm actorRef={actorRef} invitation={invitation} />
  }
  return (
    <PublicPage title="Registration">
      <Center role="status">
        <Loader size="sm" mr="sm" />
        <Text>
          {phase === 'registered' ? REGISTRATION_TEXTS.registered : REGISTRATION_TEXTS.loading}
        </Text>
      </Center>
    </PublicPage>
  )
}

/**
 * The registration page of a link whose invitation was used (with the way to Sign In) or has
 * expired (with who can send a new one), instead of "Page not found".
 */
export function ClosedInvitationView({ invitation }: { invitation: InvitationClosedError }) {
  return (
    <PublicPage title="Registration" width={560}>
      <Stack gap="md" align="center" ta="center">
        <Text fw={600} size="lg" role="alert">
          {invitation.message}
        </Text>
        {invitation.reason === 'used' ? (
          <Text>
            If it was you,{' '}
            <AnchorLink to="/signin" underline="always">
              Sign In
            </AnchorLink>{' '}
            with the e-mail and password you chose.
          </Text>
        ) : (
          <AnchorLink to="/signin" size="sm">
            Back to Sign In
          </AnchorLink>
        )}
      </Stack>
    </PublicPage>
  )
}

function RegistrationForm({
  actorRef,
  invitation,
}: {
  actorRef: RegisterPersonnelActorRef
  invitation: InvitationPreview
}) {
  const snapshot = useSelector(actorRef, (s) => s)
  const phoneRef = selectPhoneVerificationRef(snapshot)
  const phone = useSelector(phoneRef, (s) => s)
  const flags = selectRegistrationFlags(snapshot, phone)
  const error = snapshot.context.error
  const code = phone?.context.code ?? ''
  const [codeTouched, setCodeTouched] = useState(false)

  const { confirmCode: _code, ...initialValues } = registrationFormValues(invitation)
  const form = useForm<DetailsForm>({
    mode: 'uncontrolled',
    initialValues,
    validate: schemaResolver(RegistrationDetailsSchema, { sync: true }),
    validateInputOnBlur: true,
    // Get Code needs the whole form valid; the phone verification hears every change.
    onValuesChange: (values) => {
      selectPhoneVerificationRef(actorRef.getSnapshot())?.send({
        type: 'fields.change',
        valid: v.is(RegistrationDetailsSchema, values),
        target: {
          email: invitation.email,
          phone: values.phoneNumber,
          countryCode: v.is(PhoneCountryCodeSchema, values.countryCode) ? values.countryCode : '+1',
        },
      })
    },
  })

  const titles = [...new Set([...(invitation.title ? [invitation.title] : []), ...TITLES])]
  const codeError = codeTouched && code !== '' ? firstIssue(ConfirmCodeSchema, code) : null

  return (
    <PublicPage title="Registration" width={560}>
      <form
        noValidate
        aria-labelledby="registration-details"
        onSubmit={form.onSubmit((values) => {
          const details: RegistrationDetails = v.parse(RegistrationDetailsSchema, values)
          actorRef.send({ type: 'form.submit', details })
        })}
      >
        <Stack gap="md">
          <Text fw={600} size="lg" ta="center">
            {PERSONNEL_MESSAGES.joinPractice(invitation.practice_name)}
          </Text>
          <Title order={2} size="h4" id="registration-details">
            Registration Details
          </Title>
          <Select
            label="Title"
            placeholder="Choose a title"
            data={titles}
            clearable
            allowDeselect
            key={form.key('title')}
            {...form.getInputProps('title')}
          />
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
            <FormFields form={form} common={{ withAsterisk: true }} fields={NAME_FIELDS} />
          </SimpleGrid>
          <Group gap="sm" align="flex-start" wrap="nowrap">
            <Select
              label="Country code"
              data={[...PHONE_COUNTRY_CODES]}
              readOnly
              w={112}
              style={{ flexShrink: 0 }}
              key={form.key('countryCode')}
              {...form.getInputProps('countryCode')}
            />
            <TextInput
              label="Phone number"
              type="tel"
              inputMode="numeric"
              autoComplete="tel-national"
              name="phoneNumber"
              withAsterisk
              {...lockedProps(flags.lockPhoneInput)}
              errorProps={{ role: 'alert' }}
              style={{ flex: 1, minWidth: 0 }}
              key={form.key('phoneNumber')}
              {...form.getInputProps('phoneNumber')}
            />
          </Group>
          <TextInput label="Email" value={invitation.email} {...lockedProps(true)} />
          <FormFields
            form={form}
            component={PasswordField}
            common={{ autoComplete: 'new-password', withAsterisk: true }}
            fields={PASSWORD_FIELDS}
          />
          <TextInput label="Position" value={invitation.position} {...lockedProps(true)} />

          <Stack gap="xs">
            {!isCaptchaOff() && env.VITE_HCAPTCHA_SITEKEY && !phone?.matches('verified') && (
              // Texting costs the practice: with hCaptcha configured, Get Code needs a human first.
              <CaptchaField
                siteKey={env.VITE_HCAPTCHA_SITEKEY}
                error={null}
                onVerify={(token) => setGetCodeCaptchaToken(token)}
                onExpire={() => setGetCodeCaptchaToken(null)}
              />
            )}
            <Group gap="sm" wrap="wrap">
              <Button
                variant="outline"
                onClick={() => phoneRef?.send({ type: 'code.send' })}
                disabled={flags.disableGetCodeButton}
                loading={flags.busy === 'sending'}
              >
                Get Code
              </Button>
              {phone?.matches({ codeSent: 'coolingDown' }) && (
                <Text size="sm" c="dimmed">
                  {REGISTRATION_TEXTS.resendWait}
                </Text>
              )}
              {phone?.matches('idle') && flags.disableGetCodeButton && (
                <Text size="sm" c="dimmed">
                  {REGISTRATION_TEXTS.fillFormFirst}
                </Text>
              )}
            </Group>
            <TextInput
              label="Confirmation code"
              name="confirmCode"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={10}
              disabled={flags.disablePhoneCodeInput}
              value={code}
              error={codeError}
              errorProps={{ role: 'alert' }}
              onChange={(event) =>
                phoneRef?.send({ type: 'code.change', code: event.currentTarget.value.trim() })
              }
              onBlur={() => setCodeTouched(true)}
              // The button sits in the input's own row, between the label and any error below
              // it: level with the field at every width, with or without an error.
              inputContainer={(input) => (
                <Group gap="sm" wrap="nowrap" align="stretch">
                  <Box style={{ flex: 1, minWidth: 0 }}>{input}</Box>
                  <Button
                    variant="light"
                    onClick={() => phoneRef?.send({ type: 'code.verify' })}
                    disabled={flags.disableSendCodeButton}
                    loading={flags.busy === 'verifying'}
                    h="auto"
                  >
                    Verify Code
                  </Button>
                </Group>
              )}
            />
            <Box aria-live="polite">
              {phone?.context.notice && !phone.context.error && (
                <Text size="sm" c="glow.8" role="status">
                  {phone.context.notice}
                </Text>
              )}
              {snapshot.context.verifiedPhone && (
                <Group gap={6} role="status">
                  <IconCircleCheck
                    size={18}
                    aria-hidden
                    color="var(--mantine-color-green-light-color)"
                  />
                  {/* The theme's success green: Mantine's green 9 is only 4.4:1 on white. */}
                  <Text size="sm" c="var(--mantine-color-green-light-color)">
                    {REGISTRATION_TEXTS.phoneVerified}
                  </Text>
                </Group>
              )}
            </Box>
            {phone?.context.error && (
              <Text size="sm" c="red.9" role="alert">
                {phone.context.error}
              </Text>
            )}
          </Stack>

          <FailureAlert>{error}</FailureAlert>
          <Button
            type="submit"
            fullWidth
            disabled={flags.disableSignUpButton && flags.busy !== 'submitting'}
            loading={flags.busy === 'submitting'}
          >
            Submit
          </Button>
          <AnchorLink to="/signin" ta="center" size="sm">
            Back to Sign In
          </AnchorLink>
        </Stack>
      </form>
    </PublicPage>
  )
}
