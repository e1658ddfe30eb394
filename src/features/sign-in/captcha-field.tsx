import { Input, Loader } from '@mantine/core'
import { lazy, Suspense } from 'react'

// The widget and its script loader stay out of the first chunk: most visitors (localhost,
// tester mode, no site key) never need them.
const HCaptcha = lazy(() => import('@hcaptcha/react-hcaptcha'))

/** Props of {@link CaptchaField}. */
export type CaptchaFieldProps = {
  siteKey: string
  /** 'This field is required.' after a submit without a token. */
  error: string | null
  onVerify: (token: string) => void
  onExpire: () => void
}

/** The hCaptcha human check of the sign-in form, with a visible label and an announced error. */
export function CaptchaField({ siteKey, error, onVerify, onExpire }: CaptchaFieldProps) {
  return (
    <Input.Wrapper
      label="Human check"
      labelElement="div"
      error={error}
      errorProps={{ role: 'alert' }}
    >
      <Suspense fallback={<Loader size="sm" aria-label="Loading the human check" />}>
        <HCaptcha sitekey={siteKey} onVerify={(token) => onVerify(token)} onExpire={onExpire} />
      </Suspense>
    </Input.Wrapper>
  )
}
