import { Center, Loader, Text } from '@mantine/core'
import { useSelector } from '@xstate/react'
import { PublicPage } from '#src/ui/public-page.tsx'
import { ForgotPasswordView } from './forgot-password-view.tsx'
import { ResetPasswordView } from './reset-password-view.tsx'
import { type SignInScreenActorRef, SignInView } from './sign-in-view.tsx'

/** Props of {@link SignInScreen}. */
export type SignInScreenProps = {
  actorRef: SignInScreenActorRef
  /** The hCaptcha site key (from the build's configuration). */
  captchaSiteKey?: string | undefined
}

/**
 * The sign-in screen at `/signin` and `/reset`: shows the view of the machine's current state
 * (sign in, forgot password or reset password) and, once signed in, a short wait while the
 * route moves on to the dashboard.
 */
export function SignInScreen({ actorRef, captchaSiteKey }: SignInScreenProps) {
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
      return <ResetPasswordView actorRef={actorRef} />
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
      return <SignInView actorRef={actorRef} captchaSiteKey={captchaSiteKey} />
  }
}
