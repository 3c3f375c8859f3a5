/** Benchmark registries (task families with stable ids, versions and contracts) and the audit that checks them (docs/audit.md). */
export { DEFAULT_CONTRACT, contractConflict, type AgentContract, type Contract } from './contract.js';
export { loadRegistry, defaultRegistry, findRegistry, REGISTRY_FILE, type Family, type Registry } from './registry.js';
export { registrySchema, SEMVER } from './schema.js';
export { registryJsonSchema, REGISTRY_SCHEMA_ID } from './json-schema.js';
export {
  judgeAudit,
  trialOutcomes,
  isUnstable,
  departures,
  type AuditAttempt,
  type TrialOutcome,
  type Departure,
  type AgentAudit,
  type TaskAudit,
  type FamilyAudit,
} from './judge.js';
export {
  writeAuditReport,
  auditMarkdown,
  agentStatus,
  describeContract,
  describeDeparture,
  describeOutcome,
  AUDIT_SCHEMA_VERSION,
  type AuditReport,
} from './report.js';
