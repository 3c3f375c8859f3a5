export type * from './task.js';
export type * from './attempt.js';
export type * from './agent.js';
export type * from './run.js';
export type * from './check.js';
export { ATTEMPT_SCHEMA_VERSION, CAUSES, UNSCORED_CAUSES, VERDICTS } from './attempt.js';
export { CHECK_IDS, SECRET_PRESETS } from './check.js';
export { RUN_SCHEMA_VERSION, toSummaryRow } from './run.js';
