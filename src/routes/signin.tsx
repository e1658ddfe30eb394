import { createFileRoute, redirect } from '@tanstack/react-router'
import * as v from 'valibot'
import { judgeResetLink } from '#src/features/sign-in/sign-in-api.actors.ts'
import { SignInScreen } from '#src/features/sign-in/sign-in-screen.tsx'
import { signInScreenViewBeforeStart } from '#src/features/sign-in/sign-in-screen-view.ts'
import {
  consumePersonnelSignedUp,
  readLastResetCode,
  writeLastResetCode,
} from '#src/features/sign-in/sign-in-storage.ts'
import {
  loadSignInScreenMachine,
  useSignInScreenActor,
} from '#src/features/sign-in/use-sign-in-screen-actor.ts'
import { env, isCaptchaOff } from '#src/lib/env.ts'
import { writeSession } from '#src/lib/session.ts'

const SignInSearchSchema = v.object({
  /** A reset code: `/signin?code=…` opens the reset view, like `/reset?code=…`. */
  code: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(512))),
})

/**
 * `/signin`: the sign-in screen (sign in, forgot password, reset password). A signed-in visitor
 * goes to the dashboard, unless the address carries a reset code (a signed-in visitor who opens
 * an outdated reset link also sees the notice here). The personnel registration's
 * one-time flag (sessionStorage `personnelSignedUp`) turns on the success banner and fills in
 * the e-mail the person registered with.
 */
export const Route = createFileRoute('/signin')({
  validateSearch: SignInSearchSchema,
  beforeLoad: async ({ context, search, preload, cause }) => {
    // Only on arrival: dropping an outdated code from the address ('stay') keeps the notice in view.
    if (cause === 'enter' && !search.code && context.getSession()) {
      throw redirect({ to: '/dashboard', replace: true })
    }
    // A reset code here opens the reset view: judged first, as on /reset (an outdated one is
    // remembered, which turns the view into the outdated notice).
    if (search.code && !preload) {
      await judgeResetLink(search.code, { read: readLastResetCode, write: writeLastResetCode })
    }
    // A preload (hovering a link) must not use up the one-time flag.
    return { signedUpEmail: preload ? null : consumePersonnelSignedUp() }
  },
  // A reset code's first view is the machine's to choose: its code comes before the page.
  loaderDeps: ({ search }) => ({ code: search.code }),
  loader: async ({ deps }) => {
    if (deps.code) await loadSignInScreenMachine()
  },
  component: SignInRoute,
})

function SignInRoute() {
  const navigate = Route.useNavigate()
  const { code } = Route.useSearch()
  const { signedUpEmail } = Route.useRouteContext()
  const input = {
    resetCode: code ?? null,
    lastUsedResetCode: readLastResetCode(),
    captchaRequired: !isCaptchaOff(),
    personnelSignedUp: signedUpEmail !== null,
  }
  const actorRef = useSignInScreenActor(input, {
    onSignedIn: ({ session, remember }) => {
      writeSession(session, remember)
      void navigate({ to: '/dashboard' })
    },
    onResetCodeUsed: ({ code: used }) => writeLastResetCode(used),
    // The outdated code has no business in the address any more.
    onResetLinkOutdated: () => {
      void navigate({ to: '/signin', search: {}, replace: true })
    },
  })
  return (
    <SignInScreen
      actorRef={actorRef}
      beforeStart={signInScreenViewBeforeStart(input)}
      captchaSiteKey={env.VITE_HCAPTCHA_SITEKEY}
      initialEmail={signedUpEmail}
    />
  )
}
