import { MantineProvider } from '@mantine/core'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import type { AppRouter } from './router.tsx'
import { cssVariablesResolver, theme } from './theme.ts'

/** The whole web app around a router: the browser renders it, and the build prerenders it. */
export function App({ router }: { router: AppRouter }) {
  return (
    <StrictMode>
      <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
        <RouterProvider router={router} />
      </MantineProvider>
    </StrictMode>
  )
}
