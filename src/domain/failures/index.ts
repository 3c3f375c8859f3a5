/**
 * Failure patterns (docs/failure-patterns.md): the facts of a failed attempt read from its
 * trajectory, command log and diff, and per agent the share of failed attempts each pattern
 * covers. The engine records them in summary.json; the reports, `show` and the dashboard read them.
 */
export { failurePatternLines, recordedFailurePatterns, runFailurePatterns } from './failure-patterns.js';
