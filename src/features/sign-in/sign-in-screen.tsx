import { Center, Loader, Text } from '@mantine/core'
import { useSelector } from '@xstate/react'
import { lazy, Suspense, useEffect } from 'react'
import { PublicPage } from '#src/ui/public-page.tsx'
import { ForgotPasswordView } from './forgot-password-view.tsx'
import { loadSignInApi } from './sign-in-api.actors.ts'
import { type SignInScreenActorRef, SignInView } from './sign-in-view.tsx'

// Loaded when a reset link is opened: its password rules carry the list of common passwords
// (15 KB gzip), which everyone who only signs in would otherwise download.
const ResetPasswordView = lazy(() =>
  import('./reset-password-view.tsx').then((module) => ({ default: module.ResetPasswordView })),
)

/** The reset view's frame while its code arrives: the same heading, no layout jump after. */
function ResetPasswordPending() {
  return (
    <PublicPage title="Please enter a new password!">
      <Center mih={200}>
        <Loader size="sm" aria-hidden />
      </Center>
    </PublicPage>
  )
}

/** Props of {@link SignInScreen}. */
export type SignInScreenProps = {
  actorRef: SignInScreenActorRef
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
export function SignInScreen({ actorRef, captchaSiteKey, initialEmail }: SignInScreenProps) {
  // The API client is not part of the first load: it is fetched once someone starts on a form.
  useEffect(() => {
    const load = () => void loadSignInApi()
    document.addEventListener('focusin', load, { once: true })
    return () => document.removeEventListener('focusin', load)
  }, [])
  const view = useSelector(actorRef, (s) => {
    if (s.matches('forgotPassword')) return 'forgotPassword'
    if (s.matches('resetPassword')) return 'resetPassword'
    if (s.matches('signedIn')) return 'signedIn'
    return 'signIn'
  })
  switch (view) {
    case 'forgotPassword':
      return <ForgotPasswordView actorRef={actorRef} />
    case 'resetPassword':
      return (
        <Suspense fallback={<ResetPasswordPending />}>
          <ResetPasswordView actorRef={actorRef} />
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
          actorRef={actorRef}
          captchaSiteKey={captchaSiteKey}
          initialEmail={initialEmail}
        />
      )
  }
}
