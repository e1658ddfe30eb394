import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type S3Settings, signS3 } from '#server/files/s3-file-store.ts'

/** An object the stub holds. */
export type StoredObject = { bytes: Buffer; contentType: string; meta: Record<string, string> }

/**
 * A local stand-in for an S3-compatible bucket, as faithful as the store needs: path-style
 * `/{bucket}/{key}`, Signature Version 4 checked on every call (403 `SignatureDoesNotMatch`), the
 * payload hash checked (400 `XAmzContentSHA256Mismatch`), PUT 200 with an ETag, GET 200 with the
 * stored Content-Type or 404 `NoSuchKey`, DELETE 204 whether or not the object was there, and
 * 404 `NoSuchBucket` for another bucket.
 */
export async function startS3Stub(bucket = 'glow-uploads') {
  const settings = {
    bucket,
    region: 'eu-west-1',
    accessKeyId: 'AKIASTUBSTUBSTUBSTUB',
    secretAccessKey: 'stub-secret-access-key-0123456789abcdef',
  }
  const objects = new Map<string, StoredObject>()
  const calls: string[] = []
  const xml = (code: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`
  const read = async (request: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }
  const server = createServer(async (request, response) => {
    const body = await read(request)
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`)
    const method = request.method ?? 'GET'
    calls.push(`${method} ${url.pathname}`)
    const answer = (status: number, code?: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, code ? { 'content-type': 'application/xml', ...headers } : headers)
      response.end(code ? xml(code) : undefined)
    }
    // The signature, recomputed from the headers the client says it signed.
    const authorization = String(request.headers.authorization ?? '')
    const signed = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? []
    const headers: Record<string, string> = {}
    for (const name of signed) {
      if (!['host', 'x-amz-date', 'x-amz-content-sha256'].includes(name)) {
        headers[name] = String(request.headers[name] ?? '')
      }
    }
    const date = String(request.headers['x-amz-date'] ?? '')
    const when = new Date(
      `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
    )
    const expected = Number.isNaN(when.getTime())
      ? ''
      : signS3(
          { method, url, headers, ...(body.length ? { body: new Uint8Array(body) } : {}) },
          settings,
          when,
        ).authorization
    if (!authorization || authorization !== expected) return answer(403, 'SignatureDoesNotMatch')
    if (
      request.headers['x-amz-content-sha256'] !== createHash('sha256').update(body).digest('hex')
    ) {
      return answer(400, 'XAmzContentSHA256Mismatch')
    }
    const [, name, ...rest] = url.pathname.split('/')
    if (name !== bucket) return answer(404, 'NoSuchBucket')
    const key = rest.map(decodeURIComponent).join('/')
    if (method === 'PUT') {
      const meta = Object.fromEntries(
        Object.entries(request.headers)
          .filter(([header]) => header.startsWith('x-amz-meta-'))
          .map(([header, value]) => [header.slice('x-amz-meta-'.length), String(value)]),
      )
      objects.set(key, {
        bytes: body,
        contentType: String(request.headers['content-type'] ?? 'binary/octet-stream'),
        meta,
      })
      return answer(200, undefined, { etag: `"${createHash('md5').update(body).digest('hex')}"` })
    }
    if (method === 'GET') {
      const object = objects.get(key)
      if (!object) return answer(404, 'NoSuchKey')
      response.writeHead(200, {
        'content-type': object.contentType,
        'content-length': String(object.bytes.length),
      })
      return response.end(object.bytes)
    }
    if (method === 'DELETE') {
      objects.delete(key)
      return answer(204)
    }
    return answer(405, 'MethodNotAllowed')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    settings: { ...settings, endpoint: `http://127.0.0.1:${port}` } satisfies S3Settings,
    objects,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
