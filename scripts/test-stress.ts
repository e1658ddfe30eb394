/**
 * `npm run test:stress`: the whole suite (`npm test`, with the same stage arguments) while a busy
 * loop runs on every core, at the suite's own priority. A test that depends on timing (a sleep, a
 * fixed timeout, a race with a worker) fails here on a developer's machine before it fails in CI,
 * where the machine is shared. `STRESS_HOGS=N` sets the number of loops (one per core by default).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

const count = Number(process.env.STRESS_HOGS ?? availableParallelism())
const hogs: ChildProcess[] = []
for (let i = 0; i < count; i++) {
  hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
}
const stop = () => {
  for (const hog of hogs) hog.kill('SIGKILL')
}
process.on('exit', stop)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stop()
    process.exit(130)
  })
}

console.log(`Running the suite beside ${count} busy loop${count === 1 ? '' : 's'} (one per core).`)
const started = performance.now()
const result = spawnSync('npx', ['tsx', 'scripts/test.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
})
stop()
console.log(
  `Under stress: ${((performance.now() - started) / 1000).toFixed(0)} s with ${count} busy loop${count === 1 ? '' : 's'}.`,
)
process.exit(result.status ?? 1)
