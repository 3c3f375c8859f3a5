/** Gates: a run judged against a baseline with the paired statistics of `crucible compare`, and thresholds. */
export {
  evaluateGate,
  versionMismatches,
  versionMismatchError,
  pairAgents,
  points,
  type GateThresholds,
  type GateEvaluation,
  type GateAgentResult,
  type GateRule,
  type GateRuleName,
  type GateTaskChange,
  type VersionMismatch,
} from './evaluate.js';
export { judgeStrength, type GateStrength } from './strength.js';
export { applyAdaptiveGate, gateTarget, type GateAdaptiveReport } from './adaptive.js';
export { formatGate, gateMarkdown, type GateReport } from './report.js';
