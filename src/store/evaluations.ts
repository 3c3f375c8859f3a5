import type { Db } from './connection.js';

/**
 * Evaluations that are not runs of the agent loop but verdicts about one: `crucible ci` (a change
 * in a checkout, graded like an attempt) and `crucible gate` (a run compared with a baseline).
 * The history keeps them next to runs so `history` and the dashboard can list and filter them.
 */
export type EvaluationKind = 'ci' | 'gate';

export interface EvaluationRecord {
  /** `ci-<…>` or `gate-<…>`; unique. */
  id: string;
  kind: EvaluationKind;
  /** ISO time it finished. */
  createdAt: string;
  verdict: 'PASS' | 'FAIL';
  /** One line: what was evaluated and why it passed or failed. */
  title: string;
  /** The run a gate judged (absent for ci). */
  runId?: string;
  /** Directory of its reports (absolute on this machine). */
  reportDir: string;
  /** The kind's own JSON (gate.json, ci.json), for the dashboard. */
  detail: Record<string, unknown>;
}

export interface EvaluationFilter {
  kind?: EvaluationKind;
  /** Newest first; default 50. */
  limit?: number;
}

/** Writer half; filled in by the store's evaluations migration (issue 14). */
export function createEvaluationWriter(_db: Db): { recordEvaluation(record: EvaluationRecord): void } {
  return {
    recordEvaluation() {
      throw new Error('history: evaluations are not stored yet');
    },
  };
}

/** Reader half; filled in by the store's evaluations migration (issue 14). */
export function createEvaluationReader(_db: Db): { listEvaluations(filter?: EvaluationFilter): EvaluationRecord[] } {
  return { listEvaluations: () => [] };
}
