import { Input, Loader } from '@mantine/core'
import { lazy, Suspense, useSyncExternalStore } from 'react'

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

const noSubscription = () => () => {}

/**
 * The hCaptcha human check of a form, with a visible label and an announced error. Whether it
 * shows depends on the browser's host name, which a prerendered page cannot know (it is rendered
 * as localhost, without it): while React takes over such a page the field renders nothing, as
 * the markup did, and it appears in the render right after. Rendering it straight away made the
 * markup and the app disagree on /signin and /signup under a real host name (React error 418).
 */
export function CaptchaField({ siteKey, error, onVerify, onExpire }: CaptchaFieldProps) {
  const hydrating = useSyncExternalStore(
    noSubscription,
    () => false,
    () => true,
  )
  if (hydrating) return null
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
