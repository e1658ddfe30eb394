import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { UPLOAD_MESSAGES } from '#domain/uploads.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import { ImageUpload } from './image-upload.tsx'

function renderUpload(
  onUpload = vi.fn<(file: File) => Promise<string | undefined>>(async () => undefined),
) {
  const onRemove = vi.fn(async () => undefined as string | undefined)
  const view = renderWithProviders(
    <ImageUpload
      title="Practice logo"
      description="Shown in the header."
      preview={<span>preview</span>}
      chooseLabel="Upload logo"
      removeLabel="Remove logo"
      hasImage
      savedMessage={UPLOAD_MESSAGES.logoSaved}
      removedMessage={UPLOAD_MESSAGES.logoRemoved}
      onUpload={onUpload}
      onRemove={onRemove}
    />,
  )
  const section = screen.getByRole('region', { name: 'Practice logo' })
  const input = section.querySelector('input[type="file"]') as HTMLInputElement
  return { ...view, section, input, onUpload, onRemove }
}

describe('the image upload', () => {
  it('says a file is too large or not an image before sending it', async () => {
    const { user, section, input, onUpload } = renderUpload()
    expect(input.accept).toBe('image/png,image/jpeg,image/webp')
    const big = new File([new Uint8Array(2 * 1024 * 1024 + 1)], 'logo.png', { type: 'image/png' })
    await user.upload(input, big)
    expect(within(section).getByRole('alert')).toHaveTextContent(UPLOAD_MESSAGES.tooLarge)
    const pdf = new File(['%PDF'], 'logo.pdf', { type: 'application/pdf' })
    // Past the picker's own filter (a file dropped or picked with "All files").
    fireEvent.change(input, { target: { files: [pdf] } })
    expect(within(section).getByRole('alert')).toHaveTextContent(UPLOAD_MESSAGES.wrongType)
    expect(onUpload).not.toHaveBeenCalled()
  })

  it("sends a likely image and shows the server's refusal, or that it was saved", async () => {
    const onUpload = vi
      .fn<(file: File) => Promise<string | undefined>>()
      .mockResolvedValueOnce(UPLOAD_MESSAGES.wrongType)
      .mockResolvedValueOnce(undefined)
    const { user, section, input } = renderUpload(onUpload)
    const renamed = new File(['<html></html>'], 'logo.png', { type: 'image/png' })
    await user.upload(input, renamed)
    await waitFor(() =>
      expect(within(section).getByRole('alert')).toHaveTextContent(UPLOAD_MESSAGES.wrongType),
    )
    expect(onUpload).toHaveBeenCalledWith(renamed)
    // The same file may be picked again after a refusal.
    await user.upload(input, renamed)
    await waitFor(() =>
      expect(within(section).getByRole('status')).toHaveTextContent(UPLOAD_MESSAGES.logoSaved),
    )
    expect(onUpload).toHaveBeenCalledTimes(2)
  })

  it('removes the image and says so', async () => {
    const { user, section, onRemove } = renderUpload()
    await user.click(within(section).getByRole('button', { name: 'Remove logo' }))
    await waitFor(() =>
      expect(within(section).getByRole('status')).toHaveTextContent(UPLOAD_MESSAGES.logoRemoved),
    )
    expect(onRemove).toHaveBeenCalledTimes(1)
  })
})
