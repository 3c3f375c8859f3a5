export { toMs, MAX_DURATION_MS, MAX_DURATION_TEXT } from './duration.js';
export { loadTaskSet, MAX_TASKSET_BYTES, DEFAULT_LIMITS, DEFAULT_TEST_PATHS, type TaskSet } from './load-taskset.js';
export { taskSetJsonSchema, TASKSET_SCHEMA_ID, agentsJsonSchema, AGENTS_SCHEMA_ID } from './json-schema.js';
