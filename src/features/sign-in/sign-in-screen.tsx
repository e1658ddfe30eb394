import { Center, Loader, Text } from '@mantine/core'
import { lazy, Suspense, useCallback, useEffect } from 'react'
import { shallowEqual, useActorSelector } from '#src/lib/actor-source.ts'
import { PublicPage } from '#src/ui/public-page.tsx'
import { useForgotPasswordView } from './forgot-password-view-loader.ts'
import { loadSignInApi } from './sign-in-api.actors.ts'
import {
  type SignInScreenSource,
  type SignInScreenView,
  signInScreenView,
} from './sign-in-screen-view.ts'
import { SignInView } from './sign-in-view.tsx'

// Loaded when a reset link is opened: its password rules carry the list of common passwords
// (15 KB gzip), which everyone who only signs in would otherwise download.
const ResetPasswordView = lazy(() =>
  import('./reset-password-view.tsx').then((module) => ({ default: module.ResetPasswordView })),
)

/** A view's frame while its code arrives: the same heading, no layout jump after. */
function PendingView({ title }: { title: string }) {
  return (
    <PublicPage title={title}>
      <Center mih={200}>
        <Loader size="sm" aria-hidden />
      </Center>
    </PublicPage>
  )
}

/** Props of {@link SignInScreen}. */
export type SignInScreenProps = {
  /** The screen's actor: started, or deferred until its machine's code arrives. */
  actorRef: SignInScreenSource
  /**
   * What to show while a deferred actor's machine is on its way: its first state as known
   * without it (`signInScreenViewBeforeStart`), or null for a frame with a spinner.
   */
  beforeStart?: SignInScreenView | null | undefined
  /** The hCaptcha site key (from the build's configuration). */
  captchaSiteKey?: string | undefined
  /** The sign-in e-mail to start with (after a personnel registration). */
  initialEmail?: string | null | undefined
}

/**
 * The sign-in screen at `/signin` and `/reset`: shows the view of the machine's current state
 * (sign in, forgot password or reset password) and, once signed in, a short wait while the
 * route moves on to the dashboard.
 */
export function SignInScreen({
  actorRef,
  beforeStart = null,
  captchaSiteKey,
  initialEmail,
}: SignInScreenProps) {
  // The API client is not part of the first load: it is fetched once someone starts on a form.
  useEffect(() => {
    const load = () => void loadSignInApi()
    document.addEventListener('focusin', load, { once: true })
    return () => document.removeEventListener('focusin', load)
  }, [])
  const view = useActorSelector(
    actorRef,
    (snapshot) => (snapshot ? signInScreenView(snapshot) : beforeStart),
    shallowEqual,
  )
  const ForgotPasswordView = useForgotPasswordView(view?.screen === 'forgotPassword')
  const send = useCallback<SignInScreenSource['send']>((event) => actorRef.send(event), [actorRef])
  if (!view) return <PendingView title="Please enter a new password!" />
  switch (view.screen) {
    case 'forgotPassword':
      return ForgotPasswordView ? (
        <ForgotPasswordView view={view} send={send} />
      ) : (
        <PendingView title="Forgot Password" />
      )
    case 'resetPassword':
      return (
        <Suspense fallback={<PendingView title="Please enter a new password!" />}>
          <ResetPasswordView view={view} send={send} />
        </Suspense>
      )
    case 'signedIn':
      return (
        <PublicPage title="Sign In">
          <Center role="status">
            <Loader size="sm" mr="sm" />
            <Text>Signing you in…</Text>
          </Center>
        </PublicPage>
      )
    default:
      return (
        <SignInView
          view={view}
          send={send}
          captchaSiteKey={captchaSiteKey}
          initialEmail={initialEmail}
        />
      )
  }
}
