import './app/mantine-styles.ts'
import './app/forms.css'
import { MantineProvider } from '@mantine/core'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode, startTransition } from 'react'
import { createRoot } from 'react-dom/client'
import { createAppRouter } from './app/router.tsx'
import { cssVariablesResolver, theme } from './app/theme.ts'

const router = createAppRouter()

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

const reactRoot = createRoot(root)
// The first page is resolved before anything renders (its guards run and its code arrives; the
// server already asked for that code in the HTML), then rendered once, as a transition: React
// renders it in slices and yields to the browser between them. Rendering first and resolving
// after made the router's state change re-render the whole page synchronously, one long task
// of 600 ms on /signup at 4x CPU slowdown (issue 8).
void router.load().finally(() =>
  startTransition(() =>
    reactRoot.render(
      <StrictMode>
        <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
          <RouterProvider router={router} />
        </MantineProvider>
      </StrictMode>,
    ),
  ),
)
