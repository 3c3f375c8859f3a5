/** Diagnostics Crucible runs on itself: mutation audit and check ablation (fuzz and matrix-stress beside them). */
export { runMutations, runAblation, type AuditOptions, type MutationsOutcome, type AblationOutcome } from './audit.js';
export { shippedCatalog, loadCatalogFile, type LoadedCatalog } from './mutations-catalog.js';
export { judge, type Judgement, type EntryResult } from './mutations-judge.js';
export { ablate, type Ablation, type CheckAblation } from './ablation.js';
export { catalogSchema, type CatalogEntry } from './catalog/schema.js';
export { FIXTURES, FIXTURE_IDS } from './catalog/fixtures.js';
export { writeDiagnosticReport, type DiagnosticKind, type DiagnosticReportFiles } from './output.js';
export { listDiagnostics, DIAGNOSTIC_KINDS, type DiagnosticListItem } from './list.js';
