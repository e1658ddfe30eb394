/**
 * The yardstick of the API benchmark: a bare `node:http` server that answers every request with
 * one fixed JSON body (after reading the request body, as a POST handler must). Whatever the app
 * adds on top (routing, middleware, validation, the database) shows as the ratio to this.
 */
import { createServer } from 'node:http'

const port = Number(process.env.PORT)
const host = process.env.HOST ?? '127.0.0.1'
if (!port) throw new Error('PORT is required')

const body = JSON.stringify({ ok: true, plans: { data: [] }, coupons: { data: [] } })
const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    })
    response.end(body)
  })
})
server.listen(port, host)
process.on('SIGTERM', () => server.close(() => process.exit(0)))
