import { Button, Group, TextInput } from '@mantine/core'
import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithProviders } from '#tests/support/render.tsx'
import { AppModal } from './app-modal.tsx'

describe('the portal dialogs (focus on the first field, not the close button)', () => {
  it('opens with the focus on its first field', async () => {
    renderWithProviders(
      <AppModal opened onClose={() => {}} title="New appointment">
        <TextInput label="Patient" />
        <TextInput label="Notes" />
        <Group>
          <Button variant="default">Cancel</Button>
          <Button>Book</Button>
        </Group>
      </AppModal>,
    )
    const dialog = await screen.findByRole('dialog', { name: 'New appointment' })
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Patient' })).toHaveFocus())
    expect(dialog).toContainElement(screen.getByRole('button', { name: 'Close' }))
  })

  it('without a field, opens with the focus on its first, least destructive button', async () => {
    renderWithProviders(
      <AppModal opened onClose={() => {}} title="Cancel appointment">
        <p>The appointment will be marked cancelled.</p>
        <Group>
          <Button variant="default">Keep appointment</Button>
          <Button color="red">Cancel appointment</Button>
        </Group>
      </AppModal>,
    )
    await screen.findByRole('dialog', { name: 'Cancel appointment' })
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Keep appointment' })).toHaveFocus(),
    )
  })

  it("keeps a dialog's own choice of focus", async () => {
    renderWithProviders(
      <AppModal opened onClose={() => {}} title="Still there?">
        <TextInput label="Note" />
        <Button data-autofocus>Stay signed in</Button>
      </AppModal>,
    )
    await screen.findByRole('dialog', { name: 'Still there?' })
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Stay signed in' })).toHaveFocus(),
    )
  })
})
