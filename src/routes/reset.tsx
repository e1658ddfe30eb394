import { createFileRoute, redirect } from '@tanstack/react-router'
import * as v from 'valibot'
import { judgeResetLink } from '#src/features/sign-in/sign-in-api.actors.ts'
import { SignInScreen } from '#src/features/sign-in/sign-in-screen.tsx'
import { readLastResetCode, writeLastResetCode } from '#src/features/sign-in/sign-in-storage.ts'
import {
  loadSignInScreenMachine,
  useSignInScreenActor,
} from '#src/features/sign-in/use-sign-in-screen-actor.ts'
import { env, isCaptchaOff } from '#src/lib/env.ts'
import { writeSession } from '#src/lib/session.ts'

const ResetSearchSchema = v.object({
  /** The code the reset e-mail carries (`/reset?code=…`; `/reset=…` is redirected here). */
  code: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(512))),
})

/**
 * `/reset?code=…`: the reset-password view of the sign-in screen, also for a signed-in visitor.
 * Without a code there is nothing to reset: sign-in. The server is asked whether the code is still
 * good before the form shows; when the link is outdated (used or expired, in this browser or any
 * other, or refused by the server on submit) the visitor lands on `/signin` with
 * 'Password Reset link is outdated!' for 3 seconds.
 */
export const Route = createFileRoute('/reset')({
  validateSearch: ResetSearchSchema,
  beforeLoad: async ({ search, preload }) => {
    if (!search.code) throw redirect({ to: '/signin', replace: true })
    // Judged when opened, in any browser: a used or expired link never shows the form.
    if (preload) return
    const outdated = await judgeResetLink(search.code, {
      read: readLastResetCode,
      write: writeLastResetCode,
    })
    // /signin with the (now remembered) code shows the outdated notice for 3 seconds.
    if (outdated) throw redirect({ to: '/signin', search: { code: search.code }, replace: true })
  },
  // The reset form's first view is the machine's to choose: its code comes before the page.
  loader: () => loadSignInScreenMachine().then(() => undefined),
  component: ResetRoute,
})

function ResetRoute() {
  const navigate = Route.useNavigate()
  const { code } = Route.useSearch()
  const actorRef = useSignInScreenActor(
    {
      resetCode: code ?? null,
      lastUsedResetCode: readLastResetCode(),
      captchaRequired: !isCaptchaOff(),
    },
    {
      onSignedIn: ({ session, remember }) => {
        writeSession(session, remember)
        void navigate({ to: '/dashboard' })
      },
      onResetCodeUsed: ({ code: used }) => writeLastResetCode(used),
      // /signin opens with the same (now remembered) code and so shows the outdated notice there.
      onResetLinkOutdated: ({ code: outdated }) => {
        void navigate({ to: '/signin', search: outdated ? { code: outdated } : {}, replace: true })
      },
    },
  )
  return <SignInScreen actorRef={actorRef} captchaSiteKey={env.VITE_HCAPTCHA_SITEKEY} />
}
