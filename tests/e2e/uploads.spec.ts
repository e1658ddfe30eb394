import type { Page } from '@playwright/test'
import { UPLOAD_MESSAGES } from '#domain/uploads.ts'
import {
  jpegWithMetadata,
  pngDeclaring,
  pngWithMetadata,
  webpWithMetadata,
} from '#tests/support/image-fixtures.ts'
import { apiSignIn, expect, openAs, openSignedIn, test } from './support/fixtures.ts'
import { screens } from './support/screens.ts'
import { decoded, drawnLogo, HTML_AS_PNG, pick } from './support/uploads.ts'

// The practice logo and the own avatar, uploaded through the real server.

const shoot = screens('issue-19')

/** An image drawn in the page's own canvas, as a file a person would pick. */
async function drawnImage(
  page: Page,
  kind: 'logo' | 'avatar',
): Promise<{ name: string; mimeType: string; buffer: Buffer }> {
  if (kind === 'logo') {
    const buffer = await drawnLogo(page, {
      width: 360,
      height: 96,
      background: '#ffffff',
      mark: { colour: '#0e7490', initial: 'S' },
      name: { text: 'Bright Smile', colour: '#164e63', font: 'bold 40px sans-serif', x: 96, y: 62 },
    })
    return { name: 'bright-smile-logo.png', mimeType: 'image/png', buffer }
  }
  const dataUrl = await page.evaluate(() => {
    const canvas = document.createElement('canvas')
    const g = canvas.getContext('2d') as CanvasRenderingContext2D
    canvas.width = 160
    canvas.height = 160
    g.fillStyle = '#fde68a'
    g.fillRect(0, 0, 160, 160)
    g.fillStyle = '#b45309'
    g.beginPath()
    g.arc(80, 64, 32, 0, Math.PI * 2)
    g.fill()
    g.beginPath()
    g.ellipse(80, 150, 56, 44, 0, 0, Math.PI * 2)
    g.fill()
    return canvas.toDataURL('image/jpeg', 0.9)
  })
  const buffer = Buffer.from(dataUrl.split(',')[1] as string, 'base64')
  // A camera's EXIF block (with a place in it) rides along; the server must drop it.
  const exif = Buffer.from('Exif\0\0MM\0*GPS 51.5074N 0.1278W', 'latin1')
  const segment = Buffer.concat([
    Buffer.from([0xff, 0xe1, (exif.length + 2) >> 8, (exif.length + 2) & 0xff]),
    exif,
  ])
  return {
    name: 'me.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.concat([buffer.subarray(0, 2), segment, buffer.subarray(2)]),
  }
}

test.describe('uploads', () => {
  test('an Admin uploads a logo in Settings and sees it in the header; an HTML file renamed .png is refused', async ({
    page,
    request,
  }) => {
    // Two widths of axe and pictures, twice: more than the default minute on a busy machine.
    test.slow()
    const admin = await openSignedIn(page, request, '/settings')
    try {
      const section = page.getByRole('region', { name: 'Practice logo' })
      const headerLogo = page.getByRole('banner').getByRole('img', { name: 'Practice logo' })
      await expect(headerLogo).toHaveAttribute('src', '/logo.svg')

      // Named .png, declared image/png, but HTML inside: the server reads the content.
      await pick(page, section.getByRole('button', { name: 'Upload logo' }), HTML_AS_PNG)
      await expect(section.getByRole('alert')).toHaveText(UPLOAD_MESSAGES.wrongType)
      await expect(headerLogo).toHaveAttribute('src', '/logo.svg')
      await shoot(page, 'settings-logo-refused', section)

      // Too large is said before anything is sent.
      await pick(page, section.getByRole('button', { name: 'Upload logo' }), {
        name: 'huge.png',
        mimeType: 'image/png',
        buffer: Buffer.alloc(2 * 1024 * 1024 + 1),
      })
      await expect(section.getByRole('alert')).toHaveText(UPLOAD_MESSAGES.tooLarge)

      // 1.2 MB, but 20,000 × 20,000 pixels once drawn: the server reads the header.
      await pick(page, section.getByRole('button', { name: 'Upload logo' }), {
        name: 'poster.png',
        mimeType: 'image/png',
        buffer: Buffer.from(
          pngDeclaring({ width: 20_000, height: 20_000, rgba: true, rows: 15, noise: true }),
        ),
      })
      await expect(section.getByRole('alert')).toHaveText(
        UPLOAD_MESSAGES.tooManyPixels(20_000, 20_000),
      )
      await shoot(page, 'settings-logo-too-many-pixels', section)
      await expect(headerLogo).toHaveAttribute('src', '/logo.svg')

      await pick(
        page,
        section.getByRole('button', { name: 'Upload logo' }),
        await drawnImage(page, 'logo'),
      )
      await expect(section.getByRole('status')).toHaveText(UPLOAD_MESSAGES.logoSaved)
      await expect(headerLogo).toHaveAttribute('src', /^\/api\/upload\/files\/\d+\/[\w-]{43}$/)
      await expect.poll(() => decoded(headerLogo)).toBe(true)
      await expect(section.getByRole('img', { name: 'Current practice logo' })).toBeVisible()
      await shoot(page, 'settings-logo', section)

      // The header keeps it after a reload, without signing in again.
      await page.reload()
      await expect(headerLogo).toHaveAttribute('src', /^\/api\/upload\/files\//)
      await expect.poll(() => decoded(headerLogo)).toBe(true)

      await section.getByRole('button', { name: 'Remove logo' }).click()
      await expect(section.getByRole('status')).toHaveText(UPLOAD_MESSAGES.logoRemoved)
      await expect(headerLogo).toHaveAttribute('src', '/logo.svg')
    } finally {
      // The other journeys expect the product's logo.
      const reset = await request.delete('/api/practice/logo', {
        headers: { Authorization: `Bearer ${admin.jwt}` },
      })
      expect(reset.status()).toBe(200)
    }
  })

  test("a colleague already signed in sees a new logo at the next reload, at the new logo's own address", async ({
    page,
    request,
  }) => {
    test.slow()
    const admin = await apiSignIn(request)
    const asAdmin = { Authorization: `Bearer ${admin.jwt}` }
    await page.goto('/404')
    const file = await drawnImage(page, 'logo')
    /** Uploads the drawn logo and makes it the practice's; answers its address. */
    const setLogo = async () => {
      const uploaded = await request.post('/api/upload/files', {
        headers: asAdmin,
        multipart: { file, purpose: 'logo' },
      })
      expect(uploaded.status()).toBe(201)
      const { id } = (await uploaded.json()) as { id: number }
      const linked = await request.put('/api/practice/logo', {
        headers: asAdmin,
        data: { upload_id: id },
      })
      expect(linked.status()).toBe(200)
      return ((await linked.json()) as { image_path: string }).image_path
    }
    try {
      const first = await setLogo()
      // The colleague signs in now: their stored session names the first logo.
      const manager = await apiSignIn(request, 'manager@example.com', 'ManagerPass123', {
        fresh: true,
      })
      expect(manager.practice.image_path).toBe(first)
      await openAs(page, manager, '/dashboard')
      const headerLogo = page.getByRole('banner').getByRole('img', { name: 'Practice logo' })
      await expect(headerLogo).toHaveAttribute('src', first)
      await expect.poll(() => decoded(headerLogo)).toBe(true)

      // The Admin replaces it. Each logo has its own address, cached for good; the old one is gone.
      const second = await setLogo()
      expect(second).not.toBe(first)
      const served = await request.get(second)
      expect(served.status()).toBe(200)
      expect(served.headers()['cache-control']).toBe('private, max-age=31536000, immutable')
      expect((await request.get(first)).status()).toBe(404)
      // What a member's browser reads at each page load: never cached, the new address.
      const current = await request.get('/api/practice', {
        headers: { Authorization: `Bearer ${manager.jwt}` },
      })
      expect(current.headers()['cache-control']).toBe('no-store')
      expect(((await current.json()) as { image_path: string }).image_path).toBe(second)

      // The colleague reloads: the header shows the new logo, without signing in again.
      await page.reload()
      await expect(headerLogo).toHaveAttribute('src', second)
      await expect.poll(() => decoded(headerLogo)).toBe(true)
      // And the stored session follows, so the next page load starts with it.
      const stored = await page.evaluate(() => sessionStorage.getItem('currentUser'))
      expect(JSON.parse(stored as string).practice.image_path).toBe(second)
    } finally {
      // The other journeys expect the product's logo.
      const reset = await request.delete('/api/practice/logo', { headers: asAdmin })
      expect(reset.status()).toBe(200)
    }
  })

  test('a member uploads an avatar in My Profile and sees it in the header', async ({
    page,
    request,
  }) => {
    test.slow()
    const admin = await apiSignIn(request)
    try {
      await openAs(page, admin, `/personnel/${admin.user.id}`)
      const section = page.getByRole('region', { name: 'Your avatar' })
      const account = page.getByRole('button', { name: 'Account menu' })
      await expect(account.getByRole('img')).toHaveCount(0)

      const file = await drawnImage(page, 'avatar')
      await pick(page, section.getByRole('button', { name: 'Upload avatar' }), file)
      await expect(section.getByRole('status')).toHaveText(UPLOAD_MESSAGES.avatarSaved)
      const headerAvatar = account.getByRole('img', {
        name: `${admin.user.first_name} ${admin.user.last_name}`,
      })
      await expect(headerAvatar).toHaveAttribute('src', /^\/api\/upload\/files\/\d+\/[\w-]{43}$/)
      await expect.poll(() => decoded(headerAvatar)).toBe(true)
      // Served as a JPEG without the camera's EXIF block.
      const src = (await headerAvatar.getAttribute('src')) as string
      const served = await request.get(src)
      expect(served.headers()['content-type']).toBe('image/jpeg')
      expect(served.headers()['x-content-type-options']).toBe('nosniff')
      const bytes = await served.body()
      expect(bytes.includes('GPS 51.5074N')).toBe(false)
      expect(bytes.length).toBeLessThan(file.buffer.length)
      await shoot(page, 'my-profile-avatar', section)

      await section.getByRole('button', { name: 'Remove avatar' }).click()
      await expect(section.getByRole('status')).toHaveText(UPLOAD_MESSAGES.avatarRemoved)
      await expect(account.getByRole('img')).toHaveCount(0)
      expect((await request.get(src)).status()).toBe(404)
    } finally {
      await request.delete(`/api/users/${admin.user.id}/avatar`, {
        headers: { Authorization: `Bearer ${admin.jwt}` },
      })
    }
  })

  test('PNG, JPEG and WebP images come back without their metadata and still draw', async ({
    page,
    request,
  }) => {
    const admin = await apiSignIn(request)
    await page.goto('/404')
    for (const [name, type, bytes] of [
      ['photo.png', 'image/png', pngWithMetadata()],
      ['photo.jpg', 'image/jpeg', jpegWithMetadata()],
      ['photo.webp', 'image/webp', webpWithMetadata()],
    ] as const) {
      const uploaded = await request.post('/api/upload/files', {
        headers: { Authorization: `Bearer ${admin.jwt}` },
        multipart: {
          file: { name, mimeType: type, buffer: Buffer.from(bytes) },
          purpose: 'avatar',
        },
      })
      expect(uploaded.status(), name).toBe(201)
      const { id, url } = (await uploaded.json()) as { id: number; url: string }
      const served = await request.get(url)
      expect(served.headers()['content-type']).toBe(type)
      expect((await served.body()).includes('secret-'), name).toBe(false)
      // Chromium decodes what the server kept.
      const width = await page.evaluate(
        (src) =>
          new Promise<number>((resolve) => {
            const img = new Image()
            img.onload = () => resolve(img.naturalWidth)
            img.onerror = () => resolve(0)
            img.src = src
          }),
        url,
      )
      expect(width, name).toBe(16)
      await request.delete(`/api/upload/files/${id}`, {
        headers: { Authorization: `Bearer ${admin.jwt}` },
      })
    }
  })
})
