import { createHash, createHmac } from 'node:crypto'
import type { FileStore } from '#server/files/file-store.ts'

/**
 * An S3-compatible bucket for uploaded images: AWS S3, MinIO, Cloudflare R2, Backblaze
 * B2 and the like, addressed path-style (`{endpoint}/{bucket}/{key}`), which they all accept. Set
 * by S3_ENDPOINT, S3_BUCKET, S3_REGION, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.
 */
export type S3Settings = {
  /** `https://s3.eu-west-1.amazonaws.com`, `http://minio:9000`, … (no bucket in it). */
  endpoint: string
  bucket: string
  /** The signing region: the bucket's AWS region, `auto` for R2, `us-east-1` for most others. */
  region: string
  accessKeyId: string
  secretAccessKey: string
}

/** How long the bucket may take to answer one call. */
export const S3_TIMEOUT_MS = 10_000

/** A call the bucket refused or did not answer. The message names the status, never a secret. */
export class S3Error extends Error {
  override readonly name = 'S3Error'
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()

/** RFC 3986 encoding of one path segment, as Signature Version 4 wants it. */
const encodeSegment = (segment: string) =>
  encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )

/** What {@link signS3} signs: one request without a query string. */
export type S3Request = {
  method: string
  url: URL
  /** Headers to sign besides `host`, `x-amz-date` and `x-amz-content-sha256`. */
  headers?: Record<string, string>
  body?: Uint8Array
}

/**
 * The headers of `request` signed with AWS Signature Version 4 for S3 (`Authorization`,
 * `x-amz-date`, `x-amz-content-sha256` and the given ones). The payload is hashed, not sent
 * unsigned: images are at most 2 MB.
 */
export function signS3(
  request: S3Request,
  settings: Pick<S3Settings, 'region' | 'accessKeyId' | 'secretAccessKey'>,
  now: Date,
): Record<string, string> {
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')
  const day = amzDate.slice(0, 8)
  const headers: Record<string, string> = {
    host: request.url.host,
    'x-amz-content-sha256': sha256(request.body ?? new Uint8Array()),
    'x-amz-date': amzDate,
  }
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    headers[name.toLowerCase()] = value.trim().replace(/\s+/g, ' ')
  }
  const names = Object.keys(headers).sort()
  const signedHeaders = names.join(';')
  const canonical = [
    request.method,
    request.url.pathname,
    '',
    ...names.map((name) => `${name}:${headers[name]}`),
    '',
    signedHeaders,
    headers['x-amz-content-sha256'],
  ].join('\n')
  const scope = `${day}/${settings.region}/s3/aws4_request`
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n')
  let key = hmac(`AWS4${settings.secretAccessKey}`, day)
  for (const part of [settings.region, 's3', 'aws4_request']) key = hmac(key, part)
  const signature = createHmac('sha256', key).update(toSign).digest('hex')
  const { host: _host, ...sent } = headers
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${settings.accessKeyId}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`,
  }
}

/**
 * Images in an S3-compatible bucket, one object per image under `{practiceId}/{key}`, with its
 * content type and size in pixels as metadata. Any process reaches the bucket, so any process
 * serves any upload; the bucket is then part of the backup (its versioning, or a copy).
 */
export function createS3FileStore(
  settings: S3Settings,
  {
    fetch: send = globalThis.fetch,
    now = () => new Date(),
    timeoutMs = S3_TIMEOUT_MS,
  }: { fetch?: typeof globalThis.fetch; now?: () => Date; timeoutMs?: number } = {},
): FileStore {
  const base = settings.endpoint.replace(/\/+$/, '')
  const objectUrl = (practiceId: number, key: string) =>
    new URL(`${base}/${encodeSegment(settings.bucket)}/${practiceId}/${encodeSegment(key)}`)
  const call = async (request: S3Request) => {
    const headers = signS3(request, settings, now())
    try {
      return await send(request.url, {
        method: request.method,
        headers,
        // A copy typed as its own ArrayBuffer, which fetch's body type asks for.
        ...(request.body ? { body: new Uint8Array(request.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      throw new S3Error(
        `The S3 bucket ${settings.bucket} did not answer a ${request.method}: ${(error as Error).name}`,
      )
    }
  }
  const refused = async (response: Response, method: string) => {
    // S3 answers errors as XML with a Code (NoSuchBucket, AccessDenied, SignatureDoesNotMatch…).
    const code = /<Code>([^<]{1,100})<\/Code>/.exec(await response.text())?.[1]
    return new S3Error(
      `The S3 bucket ${settings.bucket} refused a ${method} with ${response.status}${code ? ` ${code}` : ''}`,
    )
  }
  return {
    async put(key, bytes, image) {
      const response = await call({
        method: 'PUT',
        url: objectUrl(image.practiceId, key),
        headers: {
          'content-type': image.mime,
          'x-amz-meta-width': String(image.width),
          'x-amz-meta-height': String(image.height),
        },
        body: bytes,
      })
      if (!response.ok) throw await refused(response, 'PUT')
      await response.arrayBuffer()
    },
    async get(key, practiceId) {
      const response = await call({ method: 'GET', url: objectUrl(practiceId, key) })
      if (response.status === 404) {
        await response.arrayBuffer()
        return null
      }
      if (!response.ok) throw await refused(response, 'GET')
      return new Uint8Array(await response.arrayBuffer())
    },
    async delete(key, practiceId) {
      const response = await call({ method: 'DELETE', url: objectUrl(practiceId, key) })
      // S3 answers 204 whether or not the object was there; some others answer 404 for none.
      if (!response.ok && response.status !== 404) throw await refused(response, 'DELETE')
      await response.arrayBuffer()
    },
  }
}

/**
 * New images go to `primary`; reading tries it first, then `older` (the images stored before the
 * bucket was configured, in the database), and deleting removes from both. Switching the bucket on
 * thus keeps every stored address working without copying anything.
 */
export function layeredFileStore(primary: FileStore, older: FileStore): FileStore {
  return {
    put: (key, bytes, image) => primary.put(key, bytes, image),
    async get(key, practiceId) {
      return (await primary.get(key, practiceId)) ?? (await older.get(key, practiceId))
    },
    async delete(key, practiceId) {
      await Promise.all([primary.delete(key, practiceId), older.delete(key, practiceId)])
    },
  }
}
