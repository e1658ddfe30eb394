import { Alert, Button, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core'
import { IconCircleCheck } from '@tabler/icons-react'
import { useSelector } from '@xstate/react'
import type { ActorRefFrom } from 'xstate'
import { CONFIRM_CODE_MIN_LENGTH } from '#domain/fields.ts'
import type { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  selectBusy,
  selectCanSendCode,
  selectCanVerifyCode,
  selectCodeInputEnabled,
  selectError,
  selectNotice,
  selectResendSecondsLeft,
} from '#machines/phone-verification/phone-verification.selectors.ts'
import { env, isCaptchaOff } from '#src/lib/env.ts'
import { setGetCodeCaptchaToken } from '#src/lib/get-code-captcha.ts'
import { maskDigits } from '#src/lib/masks.ts'
import { useNow } from '#src/lib/use-now.ts'
import { CaptchaField } from '#src/ui/captcha-field.tsx'

/** The phone verification actor (a child of the wizard on step 1). */
export type PhoneVerificationActorRef = ActorRefFrom<typeof phoneVerificationMachine>

/** Props of {@link PhoneVerificationFields}. */
export type PhoneVerificationFieldsProps = {
  /** The running verification; undefined once the wizard has a verified phone from before. */
  actorRef: PhoneVerificationActorRef | undefined
  /** The wizard already holds a verified phone (Back to step 1, a reload). */
  verified: boolean
}

// The longest code the input keeps; the server's codes have 6 digits.
const CODE_MAX_LENGTH = 10

/**
 * Get Code, the confirmation code input and Verify Code (step 1), with 'Confirmation
 * Code is sent', 'Incorrect Confirmation Code entered' and the 30 s wait before a new code. Every
 * enabled or disabled state comes from the phone verification machine; once the phone is verified
 * both buttons and the code input stay locked.
 */
export function PhoneVerificationFields({ actorRef, verified }: PhoneVerificationFieldsProps) {
  if (!actorRef || verified) return <LockedVerification />
  return <ActiveVerification actorRef={actorRef} />
}

type CodeRowProps = {
  canSend: boolean
  canVerify: boolean
  codeEnabled: boolean
  busy: 'sending' | 'verifying' | null
  code: string
  onSend?: () => void
  onVerify?: () => void
  onCodeChange?: (code: string) => void
}

function CodeRow({
  canSend,
  canVerify,
  codeEnabled,
  busy,
  code,
  onSend,
  onVerify,
  onCodeChange,
}: CodeRowProps) {
  return (
    <SimpleGrid
      cols={{ base: 1, sm: 3 }}
      spacing="md"
      verticalSpacing="xs"
      style={{ alignItems: 'end' }}
    >
      <Button variant="light" onClick={onSend} disabled={!canSend} loading={busy === 'sending'}>
        Get Code
      </Button>
      <TextInput
        label="Confirmation code"
        placeholder={`${CONFIRM_CODE_MIN_LENGTH}-digit code from the SMS`}
        inputMode="numeric"
        autoComplete="one-time-code"
        value={code}
        onChange={(event) => onCodeChange?.(maskDigits(event.currentTarget.value, CODE_MAX_LENGTH))}
        disabled={!codeEnabled}
      />
      <Button onClick={onVerify} disabled={!canVerify} loading={busy === 'verifying'}>
        Verify Code
      </Button>
    </SimpleGrid>
  )
}

function LockedVerification() {
  return (
    <Stack gap="xs">
      <CodeRow canSend={false} canVerify={false} codeEnabled={false} busy={null} code="" />
      <Group gap="xs" role="status">
        <IconCircleCheck size={20} color="var(--mantine-color-green-8)" aria-hidden />
        <Text size="sm" c="var(--mantine-color-green-light-color)" fw={600}>
          Phone number verified
        </Text>
      </Group>
    </Stack>
  )
}

function ActiveVerification({ actorRef }: { actorRef: PhoneVerificationActorRef }) {
  const canSend = useSelector(actorRef, selectCanSendCode)
  const canVerify = useSelector(actorRef, selectCanVerifyCode)
  const codeEnabled = useSelector(actorRef, selectCodeInputEnabled)
  const busy = useSelector(actorRef, selectBusy)
  const notice = useSelector(actorRef, selectNotice)
  const error = useSelector(actorRef, selectError)
  const code = useSelector(actorRef, (s) => s.context.code)
  const isVerified = useSelector(actorRef, (s) => s.matches('verified'))
  const coolingDown = useSelector(actorRef, (s) => s.matches({ codeSent: 'coolingDown' }))
  const now = useNow(coolingDown)
  const secondsLeft = useSelector(actorRef, (s) => selectResendSecondsLeft(s, now))

  if (isVerified) return <LockedVerification />
  return (
    <Stack gap="xs">
      {!isCaptchaOff() && env.VITE_HCAPTCHA_SITEKEY && (
        // Texting costs the practice: with hCaptcha configured, Get Code needs a human first.
        <CaptchaField
          siteKey={env.VITE_HCAPTCHA_SITEKEY}
          error={null}
          onVerify={(token) => setGetCodeCaptchaToken(token)}
          onExpire={() => setGetCodeCaptchaToken(null)}
        />
      )}
      <CodeRow
        canSend={canSend}
        canVerify={canVerify}
        codeEnabled={codeEnabled}
        busy={busy}
        code={code}
        onSend={() => actorRef.send({ type: 'code.send' })}
        onVerify={() => actorRef.send({ type: 'code.verify' })}
        onCodeChange={(next) => actorRef.send({ type: 'code.change', code: next })}
      />
      {secondsLeft > 0 && (
        <Text size="sm" c="dimmed">
          You can ask for a new code in {secondsLeft} s
        </Text>
      )}
      {notice && !error && (
        <Text size="sm" c="var(--mantine-color-green-light-color)" role="status">
          {notice}
        </Text>
      )}
      {error && (
        <Alert color="red" role="alert" py="xs">
          {error}
        </Alert>
      )}
    </Stack>
  )
}
