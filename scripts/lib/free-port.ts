import { createServer } from 'node:net'

/** A free TCP port on the loopback interface (the OS picks one; it is free when this resolves). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => done(port))
    })
  })
}

function isFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer()
    server.once('error', () => done(false))
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)))
  })
}

/** The first of `count` consecutive free TCP ports on the loopback interface. */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 30_000)
    let free = true
    for (let port = first; free && port < first + count; port++) free = await isFree(port)
    if (free) return first
  }
  throw new Error(`No ${count} consecutive free ports found on 127.0.0.1`)
}
