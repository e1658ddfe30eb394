import { MantineProvider } from '@mantine/core'
import { screen } from '@testing-library/react'
import { act } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { renderToString } from 'react-dom/server'
import { describe, expect, it, vi } from 'vitest'
import { renderWithProviders } from '#tests/support/render.tsx'
import { CaptchaField } from './captcha-field.tsx'

const field = (
  <CaptchaField
    siteKey="10000000-ffff-ffff-ffff-000000000001"
    error={null}
    onVerify={() => {}}
    onExpire={() => {}}
  />
)

describe('the human check on a prerendered page', () => {
  it('takes over markup rendered without it, then shows itself', async () => {
    // The prerender runs as localhost, where the check is off: its markup has no field.
    const container = document.createElement('div')
    container.innerHTML = renderToString(<MantineProvider env="test">{null}</MantineProvider>)
    document.body.append(container)
    const recoverable = vi.fn()
    // Testing Library sets this around its own renders; hydrateRoot is called directly here.
    vi.stubGlobal('IS_REACT_ACT_ENVIRONMENT', true)
    let root: ReturnType<typeof hydrateRoot> | undefined
    await act(async () => {
      root = hydrateRoot(container, <MantineProvider env="test">{field}</MantineProvider>, {
        onRecoverableError: recoverable,
      })
    })
    expect(recoverable).not.toHaveBeenCalled()
    expect(await screen.findByText('Human check')).toBeInTheDocument()
    // Unmounted here, as Testing Library does with its own roots: a root left mounted would let
    // React render (the lazy hCaptcha arriving) after the file's window is gone.
    act(() => root?.unmount())
    container.remove()
    vi.unstubAllGlobals()
  })

  it('shows straight away on a page React renders itself', () => {
    renderWithProviders(field)
    expect(screen.getByText('Human check')).toBeInTheDocument()
  })
})
