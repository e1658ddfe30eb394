import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uploadContents } from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { DEFAULT_MAIL_FROM } from '#server/messaging/smtp-mail.ts'
import { startServer } from '#server/start.ts'
import { pgliteDump, readDbTemplates } from '#server/testing/db-templates.ts'
import { startS3Stub } from '#server/testing/s3-stub.ts'
import { createPracticeFixture, createTestApp, testBackends } from '#server/testing/test-app.ts'
import { fixture } from '#tests/support/image-fixtures.ts'
import { createDatabaseFileStore } from './file-store.ts'
import { cleanImage } from './images.ts'
import { createS3FileStore, layeredFileStore, S3Error, signS3 } from './s3-file-store.ts'

const tiny = () => {
  const image = cleanImage(fixture('tiny.png'))
  if (!image.ok) throw new Error('fixture not an image')
  return image
}

// An S3-compatible bucket for uploaded images, behind the same FileStore.
describe('an S3-compatible bucket for uploaded images', () => {
  let stub: Awaited<ReturnType<typeof startS3Stub>>
  beforeAll(async () => {
    stub = await startS3Stub()
  })
  afterAll(() => stub?.close())

  it("signs as AWS's own example of Signature Version 4 for S3 says", () => {
    // "GET Object" of the S3 API reference's signature examples, with its published signature.
    const headers = signS3(
      {
        method: 'GET',
        url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
        headers: { Range: 'bytes=0-9' },
      },
      {
        region: 'us-east-1',
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      new Date('2013-05-24T00:00:00Z'),
    )
    expect(headers).toEqual({
      range: 'bytes=0-9',
      'x-amz-date': '20130524T000000Z',
      'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    })
  })

  it('puts, gets and deletes an image under its practice, with its type and size', async () => {
    const image = tiny()
    const store = createS3FileStore(stub.settings)
    await store.put('a-random-key', image.bytes, {
      practiceId: 7,
      mime: image.mime,
      width: 16,
      height: 16,
    })
    const object = stub.objects.get('7/a-random-key')
    expect(object?.contentType).toBe('image/png')
    expect(object?.meta).toEqual({ width: '16', height: '16' })
    expect(object?.bytes.equals(Buffer.from(image.bytes))).toBe(true)
    const back = await store.get('a-random-key', 7)
    expect(back && Buffer.from(back).equals(Buffer.from(image.bytes))).toBe(true)
    // Another practice's key, and an unknown one, are not there.
    expect(await store.get('a-random-key', 8)).toBeNull()
    await store.delete('a-random-key', 7)
    expect(await store.get('a-random-key', 7)).toBeNull()
    await store.delete('a-random-key', 7)
  })

  it('says what the bucket refused, without a secret', async () => {
    const wrongSecret = createS3FileStore({ ...stub.settings, secretAccessKey: 'not-the-secret' })
    const failure = wrongSecret.get('a-key', 1)
    await expect(failure).rejects.toThrow(S3Error)
    await expect(failure).rejects.toThrow(
      'The S3 bucket glow-uploads refused a GET with 403 SignatureDoesNotMatch',
    )
    const noBucket = createS3FileStore({ ...stub.settings, bucket: 'other-bucket' })
    await expect(
      noBucket.put('k', tiny().bytes, { practiceId: 1, mime: 'image/png', width: 16, height: 16 }),
    ).rejects.toThrow('The S3 bucket other-bucket refused a PUT with 404 NoSuchBucket')
    const nobody = createS3FileStore({ ...stub.settings, endpoint: 'http://127.0.0.1:1' })
    await expect(nobody.get('k', 1)).rejects.toThrow(
      'The S3 bucket glow-uploads did not answer a GET',
    )
  })

  describe.each(testBackends())('beside the images already in the database on $name', (backend) => {
    it('serves both, puts new ones in the bucket and deletes from both', async () => {
      const t = await createTestApp(backend)
      try {
        const { practiceId } = await createPracticeFixture(t.db)
        const image = tiny()
        const database = createDatabaseFileStore(t.db)
        const info = { practiceId, mime: image.mime, width: 16, height: 16 }
        await database.put('stored-before', image.bytes, info)
        const store = layeredFileStore(createS3FileStore(stub.settings), database)
        await store.put('stored-after', image.bytes, info)
        expect(stub.objects.has(`${practiceId}/stored-after`)).toBe(true)
        expect(await t.db.select().from(uploadContents)).toHaveLength(1)
        for (const key of ['stored-before', 'stored-after']) {
          expect(await store.get(key, practiceId)).not.toBeNull()
          await store.delete(key, practiceId)
          expect(await store.get(key, practiceId)).toBeNull()
        }
      } finally {
        await t.close()
      }
    })
  })

  it('is what a server configured with a bucket stores new uploads in, and serves them from', async () => {
    const template = readDbTemplates()?.pglite
    const log = memoryLogger()
    const server = await startServer(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir: 'memory',
        publicUrl: 'http://localhost:3000',
        allowedOrigins: ['http://localhost:3000'],
        production: false,
        mailFrom: DEFAULT_MAIL_FROM,
        s3: stub.settings,
      },
      { log, pgliteDump: template && pgliteDump(template.seeded) },
    )
    try {
      expect(log.lines).toContain(
        `info: Uploaded images: S3 bucket glow-uploads at ${stub.settings.endpoint}`,
      )
      const api = `http://127.0.0.1:${server.port}/api`
      const signIn = await fetch(`${api}/auth/local`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password }),
      })
      const { jwt } = (await signIn.json()) as { jwt: string }
      const form = new FormData()
      form.set('file', new File([fixture('tiny.webp')], 'logo.webp', { type: 'image/webp' }))
      form.set('purpose', 'logo')
      const uploaded = await fetch(`${api}/upload/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}` },
        body: form,
      })
      expect(uploaded.status).toBe(201)
      const { url } = (await uploaded.json()) as { url: string }
      const key = url.split('/').pop() ?? ''
      const object = [...stub.objects.entries()].find(([name]) => name.endsWith(`/${key}`))
      expect(object?.[1].contentType).toBe('image/webp')
      expect(await server.database.db.select().from(uploadContents)).toEqual([])
      const served = await fetch(`http://127.0.0.1:${server.port}${url}`)
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toBe('image/webp')
      expect(
        Buffer.from(await served.arrayBuffer()).equals(object?.[1].bytes ?? Buffer.alloc(0)),
      ).toBe(true)
    } finally {
      await server.close()
    }
  })
})
