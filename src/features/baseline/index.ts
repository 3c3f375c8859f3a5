/** Baselines: a run's outcomes saved as a committed, deterministic JSON file that gates compare against. */
export {
  BASELINE_VERSION,
  BASELINE_SCHEMA_ID,
  baselineFileSchema,
  baselineJsonSchema,
  serializeBaseline,
  readBaseline,
  identityText,
  type AgentIdentity,
  type BaselineAttempt,
  type BaselineEntry,
  type BaselineFile,
} from './format.js';
export { buildBaseline, agentIdentity, taskSetRelativeTo } from './build.js';
export { readRunOutcomes, type RunAttemptOutcome, type RunOutcomes } from './read-run.js';
