import {
  Alert,
  Button,
  Center,
  Group,
  Loader,
  ScrollArea,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { IconArrowLeft } from '@tabler/icons-react'
import { useSelector } from '@xstate/react'
import { lazy, type ReactNode, Suspense } from 'react'
import * as v from 'valibot'
import { requiredString } from '#domain/fields.ts'
import { BILLING_MESSAGES } from '#domain/sign-up/billing-information.ts'
import { selectSignature } from '#machines/sign-up/sign-up.selectors.ts'
import { FormFields, type TextFieldSpec } from '#src/ui/form-fields.tsx'
import { type SignUpActorRef, useFocusOnMount } from './form-helpers.tsx'

// The documents' text is long and rarely read: it loads when a document opens.
const TermsText = lazy(() => import('./documents/terms-text.tsx'))
const AgreementText = lazy(() => import('./documents/agreement-text.tsx'))

function DocumentFrame({
  actorRef,
  title,
  children,
  after,
}: {
  actorRef: SignUpActorRef
  title: string
  /** The document's text, in a scrolling box. */
  children: ReactNode
  /** What follows the text, always in view below it (the agreement's signature). */
  after?: ReactNode
}) {
  const titleRef = useFocusOnMount<HTMLHeadingElement>(true)
  return (
    <Stack gap="md" component="article" aria-labelledby="document-title">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title
          id="document-title"
          order={2}
          size="h3"
          tabIndex={-1}
          style={{ outline: 'none' }}
          // The document replaces the step: reading starts at its title.
          ref={titleRef}
        >
          {title}
        </Title>
        <Button
          variant="default"
          leftSection={<IconArrowLeft size={16} aria-hidden />}
          onClick={() => actorRef.send({ type: 'view.close' })}
        >
          Back to Billing Information
        </Button>
      </Group>
      <ScrollArea.Autosize
        mah="50vh"
        type="auto"
        offsetScrollbars
        // Keyboard users scroll the text too: the scrolling box takes focus.
        viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': `${title}, full text` }}
      >
        <Suspense
          fallback={
            <Center py="xl" role="status">
              <Loader size="sm" mr="sm" />
              <Text>Loading…</Text>
            </Center>
          }
        >
          {children}
        </Suspense>
      </ScrollArea.Autosize>
      {after}
    </Stack>
  )
}

/** Terms and Conditions as a full view over the billing step, with a way back. */
export function TermsView({ actorRef }: { actorRef: SignUpActorRef }) {
  return (
    <DocumentFrame actorRef={actorRef} title="Terms and Conditions">
      <TermsText />
    </DocumentFrame>
  )
}

const SignatureFormSchema = v.object({
  signature: requiredString(BILLING_MESSAGES.signature.signature),
  signer_name: requiredString(BILLING_MESSAGES.signature.signerName),
})

/** Today as the agreement shows it (`YYYY-MM-DD`, the person's own calendar day). */
const SIGNATURE_FIELDS: TextFieldSpec<'signature' | 'signer_name'>[] = [
  {
    path: 'signature',
    label: 'Signature',
    placeholder: 'Type your name to sign',
    styles: { input: { fontFamily: 'cursive', fontSize: '1.1rem' } },
  },
  { path: 'signer_name', label: "Signer's name", autoComplete: 'name' },
]

function todayText(): string {
  const now = new Date()
  const month = String(now.getMonth() + 1).padStart(2, '0')
  const day = String(now.getDate()).padStart(2, '0')
  return `${now.getFullYear()}-${month}-${day}`
}

/**
 * The Business Associates Agreement (HIPAA) as a full view, with its signature, the signer's name
 * and the date, and a way back to the billing step.
 */
export function AgreementView({ actorRef }: { actorRef: SignUpActorRef }) {
  const signature = useSelector(actorRef, selectSignature)
  const form = useForm({
    mode: 'controlled',
    initialValues: {
      signature: signature?.signature ?? '',
      signer_name: signature?.signer_name ?? '',
    },
    validate: schemaResolver(SignatureFormSchema, { sync: true }),
    validateInputOnBlur: true,
  })
  return (
    <DocumentFrame
      actorRef={actorRef}
      title="Business Associates Agreement"
      after={
        <form
          noValidate
          aria-label="Sign the agreement"
          onSubmit={form.onSubmit((values) =>
            actorRef.send({ type: 'agreement.sign', ...v.parse(SignatureFormSchema, values) }),
          )}
        >
          <Stack gap="md">
            <Title order={3} size="h5">
              Signature
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
              <FormFields form={form} common={{ withAsterisk: true }} fields={SIGNATURE_FIELDS} />
              <TextInput label="Date" readOnly value={signature?.date ?? todayText()} />
            </SimpleGrid>
            <Group>
              <Button type="submit">Sign</Button>
            </Group>
            {signature && (
              <Alert color="green" role="status">
                Signed by {signature.signer_name} on {signature.date}
              </Alert>
            )}
          </Stack>
        </form>
      }
    >
      <AgreementText />
    </DocumentFrame>
  )
}
