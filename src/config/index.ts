export { loadTaskSet, toMs, DEFAULT_LIMITS, DEFAULT_TEST_PATHS, type TaskSet } from './load-taskset.js';
export { taskSetJsonSchema, TASKSET_SCHEMA_ID } from './json-schema.js';
