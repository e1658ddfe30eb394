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
// The first render is a transition: React renders in slices and yields to the browser between
// them, so the start-up work never blocks input for long (Lighthouse TBT, issue 8).
startTransition(() =>
  reactRoot.render(
    <StrictMode>
      <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
        <RouterProvider router={router} />
      </MantineProvider>
    </StrictMode>,
  ),
)
