import { createFileRoute, redirect } from '@tanstack/react-router'

// The empty path opens the dashboard; the shell guard sends visitors to sign in.
export const Route = createFileRoute('/')({
  beforeLoad: () => {
    throw redirect({ to: '/dashboard', replace: true })
  },
})
