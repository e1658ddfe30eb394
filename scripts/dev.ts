/**
 * `npm run dev`: Vite with hot reload on PORT (default 5173) and the API in watch mode on API_PORT
 * (default 3001); Vite proxies /api to it (vite.config.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process'

const apiPort = process.env.API_PORT ?? '3001'
const children: ChildProcess[] = []

function run(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  child.on('exit', (code) => {
    for (const other of children) if (other !== child) other.kill('SIGTERM')
    process.exit(code ?? 0)
  })
  children.push(child)
}

run('npx', ['tsx', 'watch', '--clear-screen=false', 'server/index.ts'], {
  PORT: apiPort,
  SERVE_DIST: '',
  PUBLIC_URL: `http://localhost:${process.env.PORT ?? '5173'}`,
})
run('npx', ['vite', '--port', process.env.PORT ?? '5173'], { API_PORT: apiPort })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal)
  })
}
