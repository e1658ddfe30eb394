import { useEffect, useState } from 'react'

type ForgotPasswordViewComponent = typeof import('./forgot-password-view.tsx').ForgotPasswordView

let loaded: ForgotPasswordViewComponent | undefined

/**
 * The Forgot Password view's code, fetched once. Only the screen's machine opens that view, so
 * the machine's loader fetches it too (use-sign-in-screen-actor.ts): it is in before it is shown.
 */
export function loadForgotPasswordView(): Promise<ForgotPasswordViewComponent> {
  return import('./forgot-password-view.tsx').then((module) => {
    loaded = module.ForgotPasswordView
    return loaded
  })
}

/**
 * The Forgot Password view when its code is in (at once when the machine's loader fetched it,
 * without a frame of waiting), or undefined while it is fetched because `needed`.
 */
export function useForgotPasswordView(needed: boolean): ForgotPasswordViewComponent | undefined {
  const [, setArrived] = useState(false)
  useEffect(() => {
    if (needed && !loaded) void loadForgotPasswordView().then(() => setArrived(true))
  }, [needed])
  return loaded
}
