import { Alert, Button, Center, Group, Loader, Stepper, Text } from '@mantine/core'
import { IconAlertTriangle } from '@tabler/icons-react'
import { useSelector } from '@xstate/react'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { SIGN_UP_STEP_LABELS, SIGN_UP_STEPS } from '#domain/sign-up/progress.ts'
import type { SignUpAlert } from '#machines/sign-up/sign-up.machine.ts'
import {
  selectAlert,
  selectBusy,
  selectOpenDocument,
  selectStep,
  selectStepIndex,
  selectVerifiedPhone,
} from '#machines/sign-up/sign-up.selectors.ts'
import { AnchorLink } from '#src/ui/links.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'
import { ClientDetailsStep } from './client-details-step.tsx'
import { type SignUpActorRef, STEP_FORM_ID } from './form-helpers.tsx'
import { loadPaymentCalls, type PaymentsMode, type StripeCardFields } from './sign-up.actors.ts'
import classes from './sign-up.module.css'

// Steps 2 to 4 load apart from step 1, so a first visit downloads and renders step 1 only;
// they are fetched as soon as the person starts on step 1. So do the Terms and the
// Agreement views, which only step 3 opens.
const loadAccountSetup = () => import('./account-setup-step.tsx')
const loadBilling = () => import('./billing-step.tsx')
const loadConfirmation = () => import('./confirmation-step.tsx')
const loadDocumentViews = () => import('./document-views.tsx')
const AccountSetupStep = lazy(() =>
  loadAccountSetup().then((module) => ({ default: module.AccountSetupStep })),
)
const BillingStep = lazy(() => loadBilling().then((module) => ({ default: module.BillingStep })))
const ConfirmationStep = lazy(() =>
  loadConfirmation().then((module) => ({ default: module.ConfirmationStep })),
)
const TermsView = lazy(() => loadDocumentViews().then((module) => ({ default: module.TermsView })))
const AgreementView = lazy(() =>
  loadDocumentViews().then((module) => ({ default: module.AgreementView })),
)

function preloadLaterSteps() {
  void loadAccountSetup()
  void loadBilling()
  void loadConfirmation()
  void loadDocumentViews()
  void loadPaymentCalls()
}

/** Room kept between a focused field and the sticky footer, in px. */
const FOCUS_CLEARANCE = 12

/** Shown for the moment a later step's code is still on its way. */
function StepLoading() {
  return (
    <Center mih={240}>
      <Loader size="sm" aria-label="Loading the step" />
    </Center>
  )
}

/**
 * The wizard's alert: a danger alert, or the warning box of a declined payment. It scrolls into
 * view when it appears, since the Continue that caused it sits at the bottom of a long step.
 */
function WizardAlert({ alert, onDismiss }: { alert: SignUpAlert; onDismiss: () => void }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' })
  }, [])
  const warning = alert.kind === 'warning'
  return (
    <Alert
      ref={ref}
      color={warning ? 'yellow' : 'red'}
      role="alert"
      icon={warning ? <IconAlertTriangle size={20} aria-hidden /> : undefined}
      title={warning ? 'Payment not completed' : undefined}
      // Mantine's yellow title on its tint is too light to read (WCAG AA): body text colour.
      styles={warning ? { title: { color: 'var(--mantine-color-text)' } } : undefined}
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onDismiss}
    >
      {alert.message}
    </Alert>
  )
}

/** Props of {@link SignUpView}. */
export type SignUpViewProps = {
  actorRef: SignUpActorRef
  /** Which card fields step 3 shows: ours (test gateway) or Stripe Elements. */
  paymentsMode?: PaymentsMode
  /** Stripe mode: receives the mounted card fields for the payment. */
  onStripeFieldsChange?: (fields: StripeCardFields | null) => void
}

/**
 * The sign-up wizard at `/signup`: a stepper with Client Information, Account
 * Setup, Billing Information and Confirmation, the current step, the wizard's alert, and a
 * sticky footer with Back ('Back to Sign In' on step 1) and Continue (Submit on step 4). Terms
 * and Conditions and the Business Associates Agreement replace the step while open.
 */
export function SignUpView({
  actorRef,
  paymentsMode = 'test',
  onStripeFieldsChange,
}: SignUpViewProps) {
  const step = useSelector(actorRef, selectStep)
  const stepIndex = useSelector(actorRef, selectStepIndex)
  const alert = useSelector(actorRef, selectAlert)
  const busy = useSelector(actorRef, selectBusy)
  const document = useSelector(actorRef, selectOpenDocument)
  const verified = useSelector(actorRef, (s) => selectVerifiedPhone(s) !== null)
  const plansFailed = useSelector(actorRef, (s) => s.matches({ billing: 'plansFailed' }))

  // The later steps are fetched once the person starts on step 1, or arrives on a later step.
  const [started, setStarted] = useState(false)
  useEffect(() => {
    if (started || step !== 'clientDetails') preloadLaterSteps()
  }, [started, step])

  // The step heading takes focus whenever the wizard moves, but not on the first page load.
  const [shownStep, setShownStep] = useState(step)
  const [moved, setMoved] = useState(false)
  if (step !== shownStep) {
    setShownStep(step)
    setMoved(true)
  }

  // The sticky footer must never hide the field that has the focus (WCAG 2.4.11): a
  // field the browser scrolled only just into view, under the footer, scrolls up clear of it.
  const footerRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const onFocus = (event: FocusEvent) => {
      const target = event.target
      requestAnimationFrame(() => {
        const footer = footerRef.current
        if (!footer || !(target instanceof HTMLElement) || footer.contains(target)) return
        const hidden = target.getBoundingClientRect().bottom - footer.getBoundingClientRect().top
        if (hidden > -FOCUS_CLEARANCE) window.scrollBy({ top: hidden + FOCUS_CLEARANCE })
      })
    }
    window.document.addEventListener('focusin', onFocus)
    return () => window.document.removeEventListener('focusin', onFocus)
  }, [])

  const first = step === 'clientDetails'
  const last = step === 'confirmation'
  const continueDisabled =
    step === 'submitted' ||
    (first && !verified) ||
    busy === 'loadingPlans' ||
    busy === 'lookingUpCoupon' ||
    plansFailed
  const continueBusy =
    busy === 'checkingAvailability' || busy === 'lockingPayment' || busy === 'submitting'

  return (
    <PublicPage title="Sign Up" width={960}>
      <Text size="sm" ta="center">
        Already signed up?{' '}
        <AnchorLink to="/signin" fw={600}>
          Sign In
        </AnchorLink>
      </Text>
      <Stepper
        active={stepIndex}
        size="sm"
        allowNextStepsSelect={false}
        classNames={{
          root: classes.stepper,
          step: classes.step,
          stepBody: classes.stepBody,
          separator: classes.separator,
        }}
      >
        {SIGN_UP_STEPS.map((name) => (
          <Stepper.Step key={name} label={SIGN_UP_STEP_LABELS[name]} />
        ))}
      </Stepper>

      {alert && (
        <WizardAlert
          key={`${alert.kind}:${alert.message}`}
          alert={alert}
          onDismiss={() => actorRef.send({ type: 'alert.dismiss' })}
        />
      )}

      {step === 'clientDetails' && (
        <div onFocusCapture={() => setStarted(true)}>
          <ClientDetailsStep actorRef={actorRef} focusHeading={moved} />
        </div>
      )}
      <Suspense fallback={<StepLoading />}>
        {step === 'accountSetup' && <AccountSetupStep actorRef={actorRef} focusHeading={moved} />}
        {step === 'billing' && (
          <>
            {/* Its own boundary: a document view on its way never hides the step's form. */}
            <Suspense fallback={<StepLoading />}>
              {document === 'terms' && <TermsView actorRef={actorRef} />}
              {document === 'agreement' && <AgreementView actorRef={actorRef} />}
            </Suspense>
            <BillingStep
              actorRef={actorRef}
              focusHeading={moved}
              paymentsMode={paymentsMode}
              onStripeFieldsChange={onStripeFieldsChange}
              hidden={document !== null}
            />
          </>
        )}
        {(step === 'confirmation' || step === 'submitted') && (
          <ConfirmationStep actorRef={actorRef} focusHeading={moved} />
        )}
      </Suspense>

      {document === null && (
        <Group ref={footerRef} justify="space-between" className={classes.footer} wrap="nowrap">
          <Button
            variant="default"
            onClick={() => actorRef.send({ type: 'step.back' })}
            disabled={continueBusy || step === 'submitted'}
          >
            {first ? 'Back to Sign In' : 'Back'}
          </Button>
          {last || step === 'submitted' ? (
            <Button
              onClick={() => actorRef.send({ type: 'confirmation.submit' })}
              loading={busy === 'submitting'}
              disabled={step === 'submitted'}
            >
              Submit
            </Button>
          ) : (
            <Button
              type="submit"
              form={STEP_FORM_ID}
              loading={continueBusy}
              disabled={continueDisabled}
            >
              Continue
            </Button>
          )}
        </Group>
      )}
    </PublicPage>
  )
}
