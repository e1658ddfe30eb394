export { pointValueCents, readProgrammeRules } from './queries.ts'
export { ledgerRoutes, patientLedgerRoutes } from './routes.ts'
export { programmeRuleRoutes } from './rules-routes.ts'
export {
  createLedger,
  type Ledger,
  type LedgerEntryRow,
  LedgerError,
  type LedgerResult,
  toAnswer,
} from './service.ts'
