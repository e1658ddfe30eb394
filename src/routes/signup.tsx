import { createFileRoute } from '@tanstack/react-router'
import { SignUpView } from '#src/features/sign-up/sign-up-view.tsx'
import { useSignUpActor } from '#src/features/sign-up/use-sign-up-actor.ts'
import { writeSession } from '#src/lib/session.ts'

/**
 * `/signup`: the four-step sign-up wizard. Back on step 1 returns to sign in; a finished sign-up
 * forgets the stored progress, signs the new Admin in and shows the thank-you page. Progress survives a reload in
 * sessionStorage, without passwords, card number, CVV or code.
 */
export const Route = createFileRoute('/signup')({
  component: SignUpRoute,
})

function SignUpRoute() {
  const navigate = Route.useNavigate()
  const { actorRef, paymentsMode, onStripeFieldsChange } = useSignUpActor({
    onBackToSignIn: () => {
      void navigate({ to: '/signin' })
    },
    onSubmitted: (session) => {
      // The new owner is signed in as a sign-in would (without Remember me): the
      // thank-you page's next step, Back to Sign In, lands in the portal.
      writeSession(session, false)
      void navigate({ to: '/thankyou' })
    },
  })
  return (
    <SignUpView
      actorRef={actorRef}
      paymentsMode={paymentsMode}
      onStripeFieldsChange={onStripeFieldsChange}
    />
  )
}
