export { toMs, MAX_DURATION_MS, MAX_DURATION_TEXT } from './duration.js';
export { loadTaskSet, MAX_TASKSET_BYTES, DEFAULT_LIMITS, DEFAULT_TEST_PATHS, type TaskSet } from './load-taskset.js';
export { taskSetJsonSchema, TASKSET_SCHEMA_ID, agentsJsonSchema, AGENTS_SCHEMA_ID } from './json-schema.js';
export { DEFAULT_RESOURCE_LIMITS, mergeDefaults, resolvePolicy, resolveResourceLimits } from './load-taskset.js';
export { type DefaultsParsed, REPORTER_NAMES_IN_CONFIG, limitsSchema, policySchema, reportersSchema, taskSchema, taskSetSchema } from './schema.js';
