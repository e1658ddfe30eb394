import { Alert } from '@mantine/core'
import type { ReactNode } from 'react'

/** Why the last try failed, announced as an alert; nothing while there is no failure. */
export function FailureAlert({ children }: { children: ReactNode }) {
  if (!children) return null
  return (
    <Alert color="red" role="alert">
      {children}
    </Alert>
  )
}
