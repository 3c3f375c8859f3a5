/**
 * The online guard (`crucible run --guard audit|enforce`): watches the agent's workspace and
 * judges its commands while it runs, with the post-hoc checks' own rules (docs/guard.md).
 */
export { startGuard, type GuardInput, type GuardSession } from './guard.js';
export { watchTree, type TreeEvent, type TreeWatcher, type TreeWatchOptions } from './watcher.js';
export { guardExecutor, commandRules, REFUSED_EXIT_CODE } from './command-guard.js';
export { pathRules, escapes } from './path-rules.js';
export { INCIDENT_FILE, type IncidentBundle } from './incident.js';
export { GUARD_MODES, type GuardAction, type GuardFinding, type GuardMode, type GuardRule, type GuardSummary } from './types.js';
export { guardCounts, guardLine, type GuardAgentCounts } from './counts.js';
