import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core'
import { useActorRef, useSelector } from '@xstate/react'
import { useEffect, useRef, useState } from 'react'
import * as v from 'valibot'
import { fromPromise } from 'xstate'
import { DEFAULT_PHONE_COUNTRY_CODE, WizardPhoneSchema } from '#domain/fields.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import type {
  GetCodeAnswer,
  GetCodeInput,
  VerifyCodeAnswer,
  VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import {
  phoneVerificationMachine,
  type VerifiedPhone,
} from '#machines/phone-verification/phone-verification.machine.ts'
import { selectPhoneLocked } from '#machines/phone-verification/phone-verification.selectors.ts'
import { maskPhone } from '#src/lib/masks.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { PhoneVerificationFields } from '#src/ui/phone-verification-fields.tsx'
import { SectionCard } from '#src/ui/section-card.tsx'

/** The calls the phone change makes; each rejects with an Error carrying the sentence to show. */
export type PhoneChangeCalls = {
  sendCode: (input: GetCodeInput) => Promise<GetCodeAnswer>
  verifyCode: (input: VerifyCodeInput) => Promise<VerifyCodeAnswer>
  /** Saves the verified phone; resolves with the refusal to show, or the saved member. */
  savePhone: (verified: VerifiedPhone) => Promise<StaffMember | string>
}

/** A stored phone's digits as people read them: (212) 555-0188 for ten digits. */
export function formatPhone(digits: string | null | undefined): string {
  if (!digits) return 'No phone number yet'
  const national = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits
  return /^\d{10}$/.test(national)
    ? `(${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`
    : digits
}

/**
 * My Profile's phone: the own phone, and "Change phone", which runs the sign-up's phone
 * verification (a code by SMS to the NEW number, the code typed, verified) and only then saves
 * the number; the server refuses a number whose code was not verified.
 */
export function PhoneChange({ member, calls }: { member: StaffMember; calls: PhoneChangeCalls }) {
  const [phone, setPhone] = useState(member.cell_phone ?? null)
  const [changing, setChanging] = useState(false)
  const [saved, setSaved] = useState(false)
  return (
    <SectionCard id="phone-title" title="Phone">
      {saved && !changing && (
        <Alert color="green" role="status">
          {SELF_SERVICE_MESSAGES.phoneSaved}
        </Alert>
      )}
      {changing ? (
        <ChangeFlow
          email={member.email}
          calls={calls}
          onCancel={() => setChanging(false)}
          onSaved={(next) => {
            setPhone(next.cell_phone ?? null)
            setSaved(true)
            setChanging(false)
          }}
        />
      ) : (
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Stack gap={2}>
            <Text size="sm" c="dimmed">
              Phone number
            </Text>
            <Text fw={500}>{formatPhone(phone)}</Text>
          </Stack>
          <Button
            variant="light"
            onClick={() => {
              setSaved(false)
              setChanging(true)
            }}
          >
            Change phone
          </Button>
        </Group>
      )}
    </SectionCard>
  )
}

function ChangeFlow({
  email,
  calls,
  onCancel,
  onSaved,
}: {
  email: string
  calls: PhoneChangeCalls
  onCancel: () => void
  onSaved: (member: StaffMember) => void
}) {
  const actorRef = useActorRef(
    phoneVerificationMachine.provide({
      actors: {
        sendCode: fromPromise<GetCodeAnswer, GetCodeInput>(({ input }) => calls.sendCode(input)),
        verifyCode: fromPromise<VerifyCodeAnswer, VerifyCodeInput>(({ input }) =>
          calls.verifyCode(input),
        ),
      },
    }),
    { input: {} },
  )
  const locked = useSelector(actorRef, selectPhoneLocked)
  const verified = useSelector(actorRef, (s) => (s.status === 'done' ? s.output : undefined))
  const [phone, setPhone] = useState('')
  const [touched, setTouched] = useState(false)
  const [saving, setSaving] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const savedFor = useRef<string | null>(null)
  const check = v.safeParse(WizardPhoneSchema, phone)
  const fieldError = touched && !check.success ? check.issues[0].message : null

  // Verified: save the number once; a refusal says why and offers to start over.
  useEffect(() => {
    if (!verified || savedFor.current === verified.authyId) return
    savedFor.current = verified.authyId
    setSaving(true)
    void calls.savePhone(verified).then((answer) => {
      setSaving(false)
      if (typeof answer === 'string') setFailure(answer)
      else onSaved(answer)
    })
  }, [verified, calls, onSaved])

  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        We text a confirmation code to the new number; it is saved once the code is verified.
      </Text>
      <TextInput
        label="New phone number"
        withAsterisk
        type="tel"
        inputMode="tel"
        autoComplete="tel-national"
        leftSection={<Text size="sm">{DEFAULT_PHONE_COUNTRY_CODE}</Text>}
        value={phone}
        disabled={locked}
        error={fieldError}
        errorProps={{ role: 'alert' }}
        onBlur={() => setTouched(true)}
        onChange={(event) => {
          const next = maskPhone(event.currentTarget.value)
          setPhone(next)
          actorRef.send({
            type: 'fields.change',
            valid: v.is(WizardPhoneSchema, next),
            target: { email, phone: next, countryCode: DEFAULT_PHONE_COUNTRY_CODE },
          })
        }}
      />
      <PhoneVerificationFields actorRef={actorRef} verified={false} />
      {saving && (
        <Text size="sm" role="status">
          Saving the new number…
        </Text>
      )}
      <FailureAlert>{failure}</FailureAlert>
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel} disabled={saving}>
          {failure ? 'Start over' : 'Cancel'}
        </Button>
      </Group>
    </Stack>
  )
}
