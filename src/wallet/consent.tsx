import { Button, Stack, Switch } from '@mantine/core'
import { useForm } from '@mantine/form'
import { WALLET_MESSAGES, type WalletConsentInput } from '#domain/wallet.ts'
import type { WalletCalls } from './api.ts'
import { Outcome } from './outcome.tsx'
import { Section } from './section.tsx'
import { type SectionProps, useWalletAction } from './wallet-action.ts'

/**
 * E-mail and text-message consent, one switch per channel, saved together. A channel the practice
 * has no address for cannot be switched on, and says why. A refused save keeps the switches as
 * the patient set them.
 */
export function ConsentSection({
  wallet,
  calls,
  ...props
}: SectionProps & { calls: Pick<WalletCalls, 'consent'> }) {
  const action = useWalletAction(props)
  const { patient } = wallet
  const form = useForm<WalletConsentInput>({
    mode: 'controlled',
    initialValues: {
      email_subscription: patient.email_subscription,
      sms_subscription: patient.sms_subscription,
    },
  })
  return (
    <Section title="Messages from the practice">
      <form
        noValidate
        aria-label="Messages from the practice"
        onSubmit={form.onSubmit(async (values) => {
          if (await action.run(() => calls.consent(values))) form.resetDirty(values)
        })}
      >
        <Stack gap="md">
          <Switch
            label="E-mails"
            description={
              patient.has_email
                ? 'Offers and your points statement'
                : WALLET_MESSAGES.emailNeedsEmail
            }
            disabled={!patient.has_email && !form.values.email_subscription}
            {...form.getInputProps('email_subscription', { type: 'checkbox' })}
          />
          <Switch
            label="Text messages (SMS)"
            description={
              patient.has_phone ? 'Offers and reminders by text' : WALLET_MESSAGES.smsNeedsPhone
            }
            disabled={!patient.has_phone && !form.values.sms_subscription}
            {...form.getInputProps('sms_subscription', { type: 'checkbox' })}
          />
          <Outcome message={action.message} error={action.error} />
          <Button type="submit" loading={action.busy} disabled={!form.isDirty()} variant="light">
            Save my choices
          </Button>
        </Stack>
      </form>
    </Section>
  )
}
