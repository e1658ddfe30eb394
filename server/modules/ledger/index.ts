export { ledgerRoutes, patientLedgerRoutes } from './routes.ts'
export { programmeRuleRoutes, readProgrammeRules } from './rules-routes.ts'
export {
  createLedger,
  type Ledger,
  type LedgerEntryRow,
  type LedgerResult,
  toAnswer,
} from './service.ts'
