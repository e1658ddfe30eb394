/**
 * The QA path replay's reporter: one line per path (pass or fail; for a failure the step, the
 * error and the screenshot), then the coverage of each flow's machines by its paths that passed,
 * and of every machine by all of them. The run fails when a state or transition is missing.
 */
import type { FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter'
import { FLOWS } from '#tests/flows/registry.ts'
import {
  coverageRows,
  flowPaths,
  formatCoverage,
  isComplete,
  type Model,
  modelsOf,
  pathTitle,
  qaFlow,
  type Reached,
} from '#tests/mbt/index.ts'
import { ANNOTATIONS } from './replay.ts'

type PathInfo = { flow: string; number: number; model: string }

/** The flows the browser replays, with their paths. */
const browserFlows = () => FLOWS.filter((flow) => flow.browser).map(qaFlow)

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
  /** What the paths that passed reached, by flow. */
  private reached = new Map<string, Reached[]>()
  private passedPaths = new Map<string, Record<string, number>>()
  private failed = 0
  private passed = 0
  /** Paths that failed once and passed when tried again (`npm test` tries a failed path twice). */
  private flaky: string[] = []
  /** The flows the run's paths belong to, and whether the run holds every generated path. */
  private flows = new Set<string>()
  private complete = false

  printsToStdio(): boolean {
    return true
  }

  onBegin(_config: unknown, suite: Suite): void {
    this.started = Date.now()
    const tests = suite.allTests()
    const all = browserFlows().flatMap(flowPaths)
    const titles = new Set(tests.map((test) => test.title))
    for (const path of all) if (titles.has(pathTitle(path))) this.flows.add(path.flow)
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
      if (result.retry > 0) this.flaky.push(name)
      console.log(
        `  ✔ ${name} (${time}${result.retry > 0 ? `, on try ${result.retry + 1}: flaky` : ''})`,
      )
      const coverage = annotation(result, ANNOTATIONS.coverage)
      if (info && coverage) {
        const { states, transitions } = JSON.parse(coverage) as {
          states: string[]
          transitions: string[]
        }
        const reached = this.reached.get(info.flow) ?? []
        reached.push({ model: info.model, states, transitions })
        this.reached.set(info.flow, reached)
        const counts = this.passedPaths.get(info.flow) ?? {}
        counts[info.model] = (counts[info.model] ?? 0) + 1
        this.passedPaths.set(info.flow, counts)
      }
      return
    }
    const again = result.retry < test.retries
    if (!again) this.failed++
    const step = annotation(result, ANNOTATIONS.failedStep) ?? 'before the first step'
    const shot = annotation(result, ANNOTATIONS.screenshot)
    console.log(`  ${again ? '↻' : '✖'} ${name} (${time})${again ? ': failed, tried again' : ''}`)
    // Every error: after a test timeout, the second one names the action that was waiting.
    const [first, ...more] = result.errors.map((error) => firstLine(error.message))
    console.log(`      failed at ${step}: ${first ?? firstLine(result.error?.message)}`)
    for (const line of more) console.log(`      then: ${line}`)
    if (shot) console.log(`      screenshot: ${shot}`)
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    const flows = browserFlows().filter((flow) => this.flows.has(flow.id))
    for (const flow of flows) {
      const rows = coverageRows(
        modelsOf(flowPaths(flow)),
        this.reached.get(flow.id) ?? [],
        this.passedPaths.get(flow.id) ?? {},
      )
      console.log(
        `\n${formatCoverage(rows, `Coverage of flow ${flow.id} by its paths that passed`)}`,
      )
    }
    const models: Model[] = [...new Set(flows.flatMap((flow) => modelsOf(flowPaths(flow))))]
    const counts: Record<string, number> = {}
    for (const perFlow of this.passedPaths.values()) {
      for (const [model, n] of Object.entries(perFlow)) counts[model] = (counts[model] ?? 0) + n
    }
    const rows = coverageRows(models, [...this.reached.values()].flat(), counts)
    console.log(
      `\n${formatCoverage(rows, 'Coverage of the flow machines by the paths that passed in the browser')}`,
    )
    const total = this.passed + this.failed
    console.log(
      `\n${this.passed} of ${total} paths passed in ${seconds(Date.now() - this.started)}${this.failed ? `, ${this.failed} failed` : ''}`,
    )
    if (this.flaky.length > 0) {
      console.log(`⚠ Passed only when tried again (flaky): ${this.flaky.join('; ')}`)
    }
    if (!this.complete) {
      console.log('(Only some paths ran: coverage is shown, not enforced.)')
    } else if (this.failed === 0 && !isComplete(rows)) {
      console.log('✖ The paths that passed do not reach every state and transition (see above).')
      return { status: 'failed' }
    }
    return { status: result.status }
  }
}
