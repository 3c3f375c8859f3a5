import { formatStrengthSummary, summarizeTaskSet, type StrengthSummary, type TaskStrength } from '../strength/index.js';

/** The `min-strength` rule's outcome: one rule for the run, since strength belongs to its tasks, not to an agent. */
export interface GateStrength {
  minStrength: number;
  /** The gated tasks' strength (absent when none was measured). */
  summary?: StrengthSummary;
  /** Measured tasks below the floor, weakest first. */
  below: Array<{ taskId: string; strength: number; survivors: number }>;
  /** Gated tasks with no strength in the run's strength.json: never measured, changed since, or unmeasurable (an oracle script). */
  unmeasured: string[];
  passed: boolean;
  message: string;
}

/**
 * Every gated task must have a strength of at least the floor: a median would let one task whose
 * tests pass half the near-miss fixes hide behind strong ones, and that task's passes are the
 * ones in doubt. A task with no measured strength fails the rule too, named, since its passes are
 * not known to be any surer.
 */
export function judgeStrength(minStrength: number, taskIds: readonly string[], measured: readonly TaskStrength[] | undefined): GateStrength {
  const byId = new Map((measured ?? []).map((t) => [t.taskId, t]));
  const gated = [...new Set(taskIds)].sort();
  const entries = gated.flatMap((id) => byId.get(id) ?? []);
  const withStrength = entries.filter((t): t is TaskStrength & { strength: number } => t.strength !== undefined);
  const below = withStrength
    .filter((t) => t.strength + 1e-9 < minStrength)
    .sort((a, b) => a.strength - b.strength || a.taskId.localeCompare(b.taskId))
    .map((t) => ({ taskId: t.taskId, strength: t.strength, survivors: t.survivors.length }));
  const known = new Set(withStrength.map((t) => t.taskId));
  const unmeasured = gated.filter((id) => !known.has(id));
  const summary = withStrength.length > 0 ? summarizeTaskSet(entries) : undefined;
  const pct = (x: number): string => `${Math.round(x * 100)}%`;
  const parts: string[] = [];
  if (below.length > 0)
    parts.push(`${below.map((t) => `${t.taskId} ${pct(t.strength)} (${t.survivors} surviving)`).join(', ')} below the required ${pct(minStrength)}`);
  if (unmeasured.length > 0)
    parts.push(
      `no strength measured for ${unmeasured.join(', ')} (fix: \`crucible validate <taskset> --strength\` with the same --out, then run again; a task with an oracle script cannot be measured)`,
    );
  const passed = parts.length === 0;
  if (passed) parts.push(`every gated task at least ${pct(minStrength)}`);
  if (summary) parts.push(`task strength ${formatStrengthSummary(summary)}`);
  return { minStrength, ...(summary ? { summary } : {}), below, unmeasured, passed, message: parts.join('; ') };
}
