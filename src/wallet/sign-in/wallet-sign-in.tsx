import { Alert, Button, Stack, Text, TextInput, Title } from '@mantine/core'
import { useActorRef, useSelector } from '@xstate/react'
import { type FormEvent, useEffect, useRef } from 'react'
import { type Actor, fromPromise } from 'xstate'
import { WALLET_CODE_LENGTH, type WalletSessionAnswer } from '#domain/wallet.ts'
import { WALLET_SIGN_IN_TEXT } from '#machines/wallet-sign-in/messages.ts'
import { walletSignInMachine } from '#machines/wallet-sign-in/wallet-sign-in.machine.ts'
import { openWalletSession, sendWalletCode } from './sign-in-calls.ts'
import { useCountdown } from './use-countdown.ts'

/** A running wallet sign-in. */
export type WalletSignInActor = Actor<typeof walletSignInMachine>

/** The machine with the real calls. */
const machineWithCalls = walletSignInMachine.provide({
  actors: {
    sendWalletCode: fromPromise(({ input }) => sendWalletCode(input)),
    openWalletSession: fromPromise(({ input }) => openWalletSession(input)),
  },
})

/**
 * The patient's sign-in by code, for the wallet of `practiceId`: e-mail or phone, the 6-digit
 * code, and the session handed to `onSignedIn`. The statechart is
 * machines/wallet-sign-in/wallet-sign-in.machine.ts; this view only shows it.
 */
export function WalletSignIn(props: {
  practiceId: number
  practiceName?: string | undefined
  onSignedIn: (session: { token: string; expires_at: string }) => void
}) {
  const actorRef = useActorRef(machineWithCalls, { input: { practiceId: props.practiceId } })
  return (
    <WalletSignInView
      actorRef={actorRef}
      practiceName={props.practiceName}
      onSignedIn={props.onSignedIn}
    />
  )
}

type ViewProps = {
  actorRef: WalletSignInActor
  practiceName?: string | undefined
  onSignedIn: (session: WalletSessionAnswer) => void
}

/** The screen of a sign-in actor (the tests run the machine on a simulated clock). */
export function WalletSignInView({ actorRef, practiceName, onSignedIn }: ViewProps) {
  const snapshot = useSelector(actorRef, (s) => s)
  const { context } = snapshot
  const send = (event: Parameters<WalletSignInActor['send']>[0]) => actorRef.send(event)

  const onSignedInRef = useRef(onSignedIn)
  onSignedInRef.current = onSignedIn
  const handedOver = useRef(false)
  useEffect(() => {
    if (snapshot.status === 'done' && !handedOver.current) {
      handedOver.current = true
      onSignedInRef.current(snapshot.output)
    }
  }, [snapshot.status, snapshot.output])

  const counting = snapshot.matches('codeSent') && !context.canResend
  const secondsLeft = useCountdown(
    actorRef.clock,
    context.resendAfterSeconds,
    counting,
    context.sendCount,
  )

  // Focus goes where the patient acts next: the field to correct, the code field once a code is
  // on its way, the button that gets them going again. Not on opening: the page starts at the top.
  const contactField = useRef<HTMLInputElement>(null)
  const codeField = useRef<HTMLInputElement>(null)
  const nextStep = useRef<HTMLButtonElement>(null)
  const target = focusTarget(snapshot)
  const focusKey = JSON.stringify([
    snapshot.value,
    context.contactError,
    context.codeError,
    context.error,
    context.sendCount,
  ])
  const lastFocusKey = useRef<string | null>(null)
  // Runs after every render, and acts only when the screen changed (the key).
  useEffect(() => {
    if (lastFocusKey.current === focusKey) return
    const opening = lastFocusKey.current === null
    lastFocusKey.current = focusKey
    if (opening) return
    if (target === 'contact') contactField.current?.focus()
    if (target === 'code' || target === 'wrongCode') codeField.current?.focus()
    if (target === 'wrongCode') codeField.current?.select()
    if (target === 'next') nextStep.current?.focus()
  })

  const title = (
    <Stack gap={4}>
      <Title order={1}>Sign in to your wallet</Title>
      <Text c="dimmed">
        {practiceName
          ? `Your points, offers and membership at ${practiceName}. No password needed.`
          : 'Your points, offers and membership. No password needed.'}
      </Text>
    </Stack>
  )

  const errorAlert = context.error ? (
    <Alert color="red" role="alert">
      {context.error}
    </Alert>
  ) : null

  const otherContact = (
    <Button
      variant="subtle"
      onClick={() => send({ type: 'contact.edit' })}
      disabled={snapshot.matches({ codeSent: 'verifying' })}
      ref={snapshot.matches('locked') ? nextStep : undefined}
    >
      Use a different e-mail or phone
    </Button>
  )

  if (snapshot.matches('signedIn')) {
    return (
      <Stack gap="md">
        {title}
        <Text role="status">You are signed in.</Text>
      </Stack>
    )
  }

  if (snapshot.matches('expiredCode') || snapshot.matches('locked')) {
    return (
      <Stack gap="md">
        {title}
        {errorAlert}
        {snapshot.matches('expiredCode') && (
          <Button ref={nextStep} onClick={() => send({ type: 'code.resend' })}>
            Send a new code
          </Button>
        )}
        {otherContact}
      </Stack>
    )
  }

  if (snapshot.matches('codeSent')) {
    const verifying = snapshot.matches({ codeSent: 'verifying' })
    const failed = snapshot.matches({ codeSent: 'verifyFailed' })
    const wrongCode = snapshot.matches({ codeSent: 'wrongCode' })
    const submit = (event: FormEvent) => {
      event.preventDefault()
      send({ type: failed ? 'retry' : 'code.submit' })
    }
    return (
      <Stack gap="md">
        {title}
        <Text role="status">{WALLET_SIGN_IN_TEXT.codeSentTo(context.sentTo ?? '')}</Text>
        {!wrongCode && errorAlert}
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <TextInput
              ref={codeField}
              label={`${WALLET_CODE_LENGTH}-digit code`}
              value={context.code}
              onChange={(event) => send({ type: 'code.change', value: event.currentTarget.value })}
              autoComplete="one-time-code"
              inputMode="numeric"
              readOnly={verifying}
              // A wrong code is the field's error: announced, and described by the field.
              error={context.codeError ?? (wrongCode ? context.error : null)}
              errorProps={{ role: 'alert' }}
              size="md"
            />
            <Button type="submit" loading={verifying} ref={failed ? nextStep : undefined} size="md">
              {failed ? 'Try again' : 'Sign in'}
            </Button>
          </Stack>
        </form>
        {context.canResend ? (
          <Button
            variant="light"
            onClick={() => send({ type: 'code.resend' })}
            disabled={verifying}
          >
            Send a new code
          </Button>
        ) : (
          <Text c="dimmed" ta="center">
            {WALLET_SIGN_IN_TEXT.resendIn(secondsLeft)}
          </Text>
        )}
        {otherContact}
      </Stack>
    )
  }

  // The contact: entering it, sending the code, or a failed send.
  const sending = snapshot.matches('sendingCode')
  const failed = snapshot.matches('sendFailed')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    send({ type: failed ? 'retry' : 'contact.submit' })
  }
  return (
    <Stack gap="md">
      {title}
      {errorAlert}
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <TextInput
            ref={contactField}
            label="E-mail or mobile phone"
            description="We will send you a 6-digit code to sign in."
            value={context.contact}
            onChange={(event) => send({ type: 'contact.change', value: event.currentTarget.value })}
            type="text"
            autoComplete="username"
            inputMode="email"
            autoCapitalize="none"
            spellCheck={false}
            readOnly={sending}
            error={context.contactError}
            errorProps={{ role: 'alert' }}
            size="md"
          />
          <Button type="submit" loading={sending} ref={failed ? nextStep : undefined} size="md">
            {failed ? 'Try again' : 'Send me a code'}
          </Button>
        </Stack>
      </form>
    </Stack>
  )
}

/** Where the focus goes after a change: a field, the button that goes on, or nowhere. */
function focusTarget(
  snapshot: ReturnType<WalletSignInActor['getSnapshot']>,
): 'contact' | 'code' | 'wrongCode' | 'next' | null {
  if (snapshot.matches('enteringContact')) return 'contact'
  if (snapshot.matches({ codeSent: 'entering' })) return 'code'
  if (snapshot.matches({ codeSent: 'wrongCode' })) return 'wrongCode'
  if (
    snapshot.matches('sendFailed') ||
    snapshot.matches({ codeSent: 'verifyFailed' }) ||
    snapshot.matches('expiredCode') ||
    snapshot.matches('locked')
  ) {
    return 'next'
  }
  return null
}
