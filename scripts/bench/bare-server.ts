/**
 * The yardstick of the API benchmark: a bare `node:http` server with fixed answers, byte for byte
 * the app's own. ANSWERS_FILE holds `{ get, post }`, each `{ headers, body }` as the app answered
 * `GET /api/practice/plans` and `POST /api/auth/check-email` once (the benchmark captures them):
 * the same status line, headers (security headers included) and body, so the load generator
 * parses the same bytes from both servers and the ratio measures the app's work alone (routing,
 * middleware, validation, the database). A POST reads its request body before answering.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { answerCpu } from './cpu-endpoint.ts'

/** One recorded answer. */
export type RecordedAnswer = { headers: Record<string, string>; body: string }

const port = Number(process.env.PORT)
const host = process.env.HOST ?? '127.0.0.1'
const file = process.env.ANSWERS_FILE
if (!port || !file) throw new Error('PORT and ANSWERS_FILE are required')

const recorded = JSON.parse(readFileSync(file, 'utf8')) as {
  get: RecordedAnswer
  post: RecordedAnswer
}
// Node writes these itself (Date, Connection, Keep-Alive, the length of this body).
const OWN = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'])
const prepare = ({ headers, body }: RecordedAnswer) => {
  const bytes = Buffer.from(body)
  const kept = Object.entries(headers).filter(([name]) => !OWN.has(name.toLowerCase()))
  return { bytes, headers: Object.fromEntries([...kept, ['content-length', String(bytes.length)]]) }
}
const get = prepare(recorded.get)
const post = prepare(recorded.post)

const server = createServer((request, response) => {
  if (answerCpu(request, response)) return
  request.resume()
  request.on('end', () => {
    const answer = request.method === 'POST' ? post : get
    response.writeHead(200, answer.headers)
    response.end(answer.bytes)
  })
})
server.listen(port, host)
process.on('SIGTERM', () => server.close(() => process.exit(0)))
