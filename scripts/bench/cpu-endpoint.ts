import type { IncomingMessage, ServerResponse } from 'node:http'

/** Where the benchmark's servers tell the CPU time their process has used. */
export const CPU_PATH = '/__bench/cpu'

/**
 * Answers `GET /__bench/cpu` with `{ "cpuMicros": n }` (user + system time of this process) and
 * returns true; returns false for any other request. CPU time per request is what the API
 * benchmark compares: unlike requests per second it does not depend on how much of the machine
 * other work leaves to the server at that moment.
 */
export function answerCpu(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.url !== CPU_PATH) return false
  const { user, system } = process.cpuUsage()
  const body = JSON.stringify({ cpuMicros: user + system })
  response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length })
  response.end(body)
  return true
}
