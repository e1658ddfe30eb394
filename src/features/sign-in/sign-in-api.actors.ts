/**
 * The sign-in screen's calls that need no machine: the auth API loaded on first use, and the
 * reset link's judgement that the routes' beforeLoad (/signin, /reset) makes. What a beforeLoad
 * imports ships in the entry chunk every page downloads first, so this module does not import
 * xstate; the machine's actors (sign-in.actors.ts) build on it.
 */

type AuthApi = typeof import('#src/api/auth.ts')

let api: Promise<[AuthApi, typeof import('#src/lib/http.ts')]> | undefined

/**
 * The auth API and its HTTP client, loaded on first use: nobody needs them to see the form, so
 * they stay out of the first load of /signin. The view asks for them as soon as the
 * form gets focus, so they are in before the first submit.
 */
export function loadSignInApi() {
  api ??= Promise.all([import('#src/api/auth.ts'), import('#src/lib/http.ts')])
  return api
}

/**
 * Judges a reset link when it is opened: asks the server whether `code` is still good,
 * and when it is not, remembers it as the last used code, so that the sign-in screen shows
 * 'Password Reset link is outdated!' for 3 seconds instead of the form. A link already remembered
 * needs no question; when the server cannot be asked, the form shows and the reset itself judges.
 * Answers whether the link is outdated.
 */
export async function judgeResetLink(
  code: string,
  remembered: { read(): string | null; write(code: string): void },
): Promise<boolean> {
  if (remembered.read() === code) return true
  try {
    const [auth] = await loadSignInApi()
    if (await auth.resetCodeStatus(code)) return false
  } catch {
    return false
  }
  remembered.write(code)
  return true
}
