export type * from './task.js';
export type * from './attempt.js';
export type * from './agent.js';
export type * from './run.js';
export { ATTEMPT_SCHEMA_VERSION } from './attempt.js';
export { RUN_SCHEMA_VERSION, toSummaryRow } from './run.js';
