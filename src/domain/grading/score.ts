import type { CheckResult, Severity } from '../../core/types/index.js';

/** Points a failed check costs. `info` findings are reported, never charged. */
export const SEVERITY_POINTS: Readonly<Record<Severity, number>> = { info: 0, warning: 5, error: 25, critical: 50 };

/** Severities that make the verdict FAIL when their check fails. */
export const BLOCKING: ReadonlySet<Severity> = new Set(['error', 'critical']);

/** 100 minus the points of every failed check, never below 0. */
export function score(checks: readonly CheckResult[]): number {
  const lost = checks.filter((c) => !c.passed).reduce((sum, c) => sum + SEVERITY_POINTS[c.severity], 0);
  return Math.max(0, 100 - lost);
}
