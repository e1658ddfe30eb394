/**
 * `npm run paths`: writes the QA documents of every registered flow (`docs/paths/<flow>.md`, the
 * index with the coverage) and a Mermaid diagram per machine (`docs/machines/<machine>.md`), and
 * removes generated files no flow produces any more.
 */
import { FLOWS, MODELS } from '#tests/flows/registry.ts'
import { formatCoverage, machineCoverage, qaFlow, renderDocs, writeDocs } from '#tests/mbt/index.ts'

const flows = FLOWS.map(qaFlow)
const { written, removed } = writeDocs(renderDocs(flows, MODELS), process.cwd())
for (const path of written) console.log(`wrote ${path}`)
for (const path of removed) console.log(`removed ${path}`)
if (written.length === 0 && removed.length === 0) {
  console.log('docs/paths and docs/machines are up to date')
}
console.log(
  `\n${formatCoverage(machineCoverage(flows, MODELS), 'Coverage of the flow machines by the generated paths')}`,
)
