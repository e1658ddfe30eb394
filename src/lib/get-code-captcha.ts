/**
 * The human check's token for the next `POST /auth/get-code` (the server requires it when
 * hCaptcha is configured). The widget next to Get Code puts it here and the call takes it: a
 * token is good for one check, so each code asked for needs a fresh tick. The sign-up wizard and
 * the personnel registration both ask for codes.
 */
let token: string | null = null

/** Keeps the token the widget handed out (null when it expired). */
export function setGetCodeCaptchaToken(next: string | null): void {
  token = next
}

/** The token for one get-code call, forgotten once taken; undefined when there is none. */
export function takeGetCodeCaptchaToken(): string | undefined {
  const taken = token ?? undefined
  token = null
  return taken
}

/** `input` with the human check's token, when the widget handed one out. */
export function withCaptchaToken<T extends object>(input: T): T & { captchaToken?: string } {
  const captchaToken = takeGetCodeCaptchaToken()
  return captchaToken ? { ...input, captchaToken } : input
}
