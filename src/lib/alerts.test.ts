import { act, renderHook } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { clearAlert, getAlert, noteNavigation, showAlert, useAlert } from './alerts.ts'

afterEach(() => clearAlert())

describe('alerts', () => {
  it('are cleared by the next navigation', () => {
    showAlert({ type: 'danger', message: 'Please enter a valid email' })
    expect(getAlert()).toEqual({ type: 'danger', message: 'Please enter a valid email' })
    noteNavigation()
    expect(getAlert()).toBeNull()
  })

  it('survive one navigation when they persist, and go with the one after', () => {
    showAlert({ type: 'success', message: 'Saved', persist: true })
    noteNavigation()
    expect(getAlert()).toEqual({ type: 'success', message: 'Saved', persist: false })
    noteNavigation()
    expect(getAlert()).toBeNull()
  })

  it('replace each other and can be closed', () => {
    showAlert({ type: 'success', message: 'First' })
    showAlert({ type: 'danger', message: 'Second' })
    expect(getAlert()?.message).toBe('Second')
    clearAlert()
    expect(getAlert()).toBeNull()
  })

  it('useAlert follows the store', () => {
    const { result } = renderHook(() => useAlert())
    expect(result.current).toBeNull()
    act(() => showAlert({ type: 'success', message: 'Hello' }))
    expect(result.current?.message).toBe('Hello')
    act(() => noteNavigation())
    expect(result.current).toBeNull()
  })
})
