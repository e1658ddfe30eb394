import '@testing-library/jest-dom/vitest'
import { cleanup, configure } from '@testing-library/react'
import { afterAll, afterEach, vi } from 'vitest'

afterEach(() => {
  cleanup()
})

// The web files share one jsdom within a worker (vitest.config.ts): each file leaves it as a new
// one would find it, with nothing stored, at the first address, untitled.
afterAll(() => {
  localStorage.clear()
  sessionStorage.clear()
  window.history.replaceState(null, '', '/')
  document.title = ''
})

// findBy*/waitFor give up after 1 s by default. A view that loads lazily (the wizard's later
// steps, the card fields) is transformed on its first import in a test run, which takes longer
// than that on a busy two-core machine: 5 s was not enough beside a busy loop on each core and
// other work (the Stripe card fields, once). Wait up to 30 s, well inside the test's timeout. A
// passing wait returns as soon as the element is there, so this only changes how long a real
// failure takes to report.
configure({ asyncUtilTimeout: 30_000 })

// Mantine needs these browser APIs that jsdom lacks.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: vi.fn().mockImplementation((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  })),
})

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = ResizeObserverStub as unknown as typeof ResizeObserver
HTMLElement.prototype.scrollIntoView = () => {}
window.scrollTo = (() => {}) as typeof window.scrollTo
Object.defineProperty(document, 'fonts', {
  configurable: true,
  value: { addEventListener: () => {}, removeEventListener: () => {}, ready: Promise.resolve() },
})

// A React warning in a test is a bug: fail loudly instead of scrolling past it.
const originalError = console.error
console.error = (...args: unknown[]) => {
  originalError(...args)
  throw new Error(`console.error was called: ${args.map(String).join(' ').slice(0, 500)}`)
}
