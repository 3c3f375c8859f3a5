/** `crucible ci`'s public entry: evaluate a checkout's change like an attempt, report it, record it. */
export { runCi, type CiOptions } from './run.js';
export { ciResult, ciTitle, CI_SCHEMA_VERSION, type CiResult, type CiCheckSummary } from './result.js';
export { ciConfigSchema, resolveCiSettings, CI_CONFIG_FILE, type CiSettings, type CiFlags } from './config.js';
export { renderCiMarkdown, renderCiSarif, appendStepSummary, CI_FILES } from './report.js';
export { readCommandLog } from './command-log.js';
export { ciJsonSchema, CI_SCHEMA_ID } from './json-schema.js';
export { evaluateCheckout, type CiInput, type CiEvaluation } from './evaluate.js';
