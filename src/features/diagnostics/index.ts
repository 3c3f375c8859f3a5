/** Diagnostics Crucible runs on itself: mutation audit, check ablation, policy fuzzing, matrix stress. Each writes JSON + Markdown under `<state>/diagnostics/<kind>/<id>/`. */
export { writeDiagnosticReport, type DiagnosticKind, type DiagnosticReportFiles } from './output.js';
export { listDiagnostics, DIAGNOSTIC_KINDS, type DiagnosticListItem } from './list.js';
export { runMutations, runAblation, type AuditOptions, type MutationsOutcome, type AblationOutcome } from './audit.js';
export { shippedCatalog, loadCatalogFile, type LoadedCatalog } from './mutations-catalog.js';
export { judge, type Judgement, type EntryResult } from './mutations-judge.js';
export { ablate, type Ablation, type CheckAblation } from './ablation.js';
export { catalogSchema, type CatalogEntry } from './catalog/schema.js';
export { FIXTURES, FIXTURE_IDS } from './catalog/fixtures.js';
export { runFuzz, generateCorpus, corpusHash, type FuzzOptions, type FuzzReport, type VariantResult, type Judgement as FuzzJudgement } from './fuzz.js';
export { fuzzMarkdown } from './fuzz-report.js';
export { FUZZ_DIMENSIONS, type FuzzVariant, type FuzzDimension, type VariantClass } from './fuzz-types.js';
export { runMatrixStress, type MatrixStressOptions, type MatrixStressReport, type StressCheck } from './matrix-stress.js';
export { matrixStressMarkdown } from './matrix-stress-report.js';
