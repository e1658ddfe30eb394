/**
 * The QA path replay's reporter: one line per path (pass or fail; for a failure the step, the
 * error and the screenshot), then the coverage of each machine by the paths that passed. The run
 * fails when a state or transition is missing.
 */
import type { FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter'
import { coverageRows, formatCoverage, isComplete, type Reached } from '#tests/paths/coverage.ts'
import { type FlowId, type MachineKey, pathTitle, qaFlows } from '#tests/paths/flows.ts'
import { ANNOTATIONS } from './replay.ts'

type PathInfo = { flow: FlowId; number: number; machine: MachineKey }

function annotation(test: TestCase | TestResult, type: string): string | undefined {
  return test.annotations.find((a) => a.type === type)?.description
}

// Playwright's error messages carry terminal colour codes.
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')

function firstLine(text: string | undefined): string {
  // Playwright's messages carry colour codes and the call log after the first line.
  return (text ?? '').replace(ANSI_COLOUR, '').split('\n')[0]?.trim() ?? ''
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/** Prints the per-path lines and the coverage summary of the QA path replay. */
export default class PathsReporter implements Reporter {
  private started = Date.now()
  private reached: Reached[] = []
  private passedPaths = new Map<MachineKey, number>()
  private failed = 0
  private passed = 0
  /** The machines the run's paths walk, and whether the run holds every generated path. */
  private machines = new Set<MachineKey>()
  private complete = false

  printsToStdio(): boolean {
    return true
  }

  onBegin(_config: unknown, suite: Suite): void {
    this.started = Date.now()
    const tests = suite.allTests()
    const all = qaFlows().flatMap((flow) => flow.sections.flatMap((s) => s.paths))
    const titles = new Set(tests.map((test) => test.title))
    for (const path of all) if (titles.has(pathTitle(path))) this.machines.add(path.machine)
    this.complete = all.every((path) => titles.has(pathTitle(path)))
    console.log(`Replaying ${tests.length} QA paths in Chromium against the real server\n`)
  }

  onStdOut(chunk: string | Buffer, test?: TestCase): void {
    // Output of the web server (the build, the start banner); a path's own output stays quiet.
    if (!test) process.stdout.write(chunk)
  }

  onStdErr(chunk: string | Buffer): void {
    process.stderr.write(chunk)
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const info = JSON.parse(annotation(result, ANNOTATIONS.path) ?? 'null') as PathInfo | null
    const name = test.title
    const time = seconds(result.duration)
    if (result.status === 'passed' || result.status === test.expectedStatus) {
      this.passed++
      console.log(`  ✔ ${name} (${time})`)
      const coverage = annotation(result, ANNOTATIONS.coverage)
      if (info && coverage) {
        const { states, transitions } = JSON.parse(coverage) as {
          states: string[]
          transitions: string[]
        }
        this.reached.push({
          machine: info.machine,
          states: new Set(states),
          transitions: new Set(transitions),
        })
        this.passedPaths.set(info.machine, (this.passedPaths.get(info.machine) ?? 0) + 1)
      }
      return
    }
    this.failed++
    const step = annotation(result, ANNOTATIONS.failedStep) ?? 'before the first step'
    const shot = annotation(result, ANNOTATIONS.screenshot)
    console.log(`  ✖ ${name} (${time})`)
    console.log(`      failed at ${step}: ${firstLine(result.error?.message)}`)
    if (shot) console.log(`      screenshot: ${shot}`)
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    const rows = coverageRows(this.reached, Object.fromEntries(this.passedPaths)).filter((row) =>
      this.machines.has(row.machine),
    )
    console.log(
      `\n${formatCoverage(rows, 'Coverage of the flow machines by the paths that passed in the browser')}`,
    )
    const total = this.passed + this.failed
    console.log(
      `\n${this.passed} of ${total} paths passed in ${seconds(Date.now() - this.started)}${this.failed ? `, ${this.failed} failed` : ''}`,
    )
    if (!this.complete) {
      console.log('(Only some paths ran: coverage is shown, not enforced.)')
    } else if (this.failed === 0 && !isComplete(rows)) {
      console.log('✖ The paths that passed do not reach every state and transition (see above).')
      return { status: 'failed' }
    }
    return { status: result.status }
  }
}
