/** Diagnostics Crucible runs on itself; each writes JSON + Markdown under `<state>/diagnostics/<kind>/<id>/`. */
export { writeDiagnosticReport, type DiagnosticKind, type DiagnosticReportFiles } from './output.js';
export { runFuzz, generateCorpus, corpusHash, type FuzzOptions, type FuzzReport, type VariantResult, type Judgement } from './fuzz.js';
export { fuzzMarkdown } from './fuzz-report.js';
export { FUZZ_DIMENSIONS, type FuzzVariant, type FuzzDimension, type VariantClass } from './fuzz-types.js';
export { runMatrixStress, type MatrixStressOptions, type MatrixStressReport, type StressCheck } from './matrix-stress.js';
export { matrixStressMarkdown } from './matrix-stress-report.js';
