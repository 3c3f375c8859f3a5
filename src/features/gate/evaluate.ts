import { compareRuns, type CellCounts } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { UNSCORED_CAUSES, type Cause, type GateCell } from '../../core/types/index.js';
import { agentIdentity, identityText, type AgentIdentity, type BaselineFile } from '../baseline/index.js';
import type { RunAttemptOutcome } from '../baseline/index.js';
import type { TaskStrength } from '../strength/index.js';
import { judgeStrength, type GateStrength } from './strength.js';

export interface GateThresholds {
  /** Fail when the new agent's pass rate (0–1) over its scored attempts is below this. */
  minSuccessRate?: number;
  /** Points (0–100) of drop tolerated before a separated paired comparison fails the gate. */
  maxDrop: number;
  /** PASS→FAIL tasks tolerated. */
  maxRegressedTasks: number;
  /** Fail when a gated task's strength (0–1, `crucible validate --strength`) is below this, or unmeasured. */
  minStrength?: number;
}

export interface VersionMismatch {
  taskId: string;
  baselineVersion: string;
  currentVersion: string;
}

export type GateRuleName = 'min-success-rate' | 'max-drop' | 'max-regressed-tasks' | 'min-strength';

export interface GateRule {
  rule: GateRuleName;
  passed: boolean;
  /** One line with the numbers behind the outcome. */
  message: string;
}

export interface GateTaskChange {
  taskId: string;
  baseline: { passes: number; n: number };
  current: { passes: number; n: number };
  /** Check ids that failed now on this task and in no baseline attempt of it. */
  newlyFailedChecks: string[];
}

export interface GateAgentResult {
  agent: string;
  baselineAgent: string;
  identity: AgentIdentity[];
  baselineIdentity: AgentIdentity[];
  /** Pass rate over the agent's scored attempts on the shared tasks; null when none was scored. */
  passRate: number | null;
  baselinePassRate: number | null;
  /** Shared tasks scored on both sides (the paired comparison's sample). */
  tasks: number;
  /**
   * The paired sign-flip comparison `crucible compare` uses, turned to read as new − baseline:
   * `diff` negative means the agent got worse; `low`/`high` bound that difference.
   */
  comparison: {
    diff: number | null;
    low: number | null;
    high: number | null;
    pValue: number | null;
    verdict: 'worse' | 'better' | 'not separated';
    method: string;
    confidence: number;
    note?: string;
  };
  /** Tasks every scored baseline attempt passed and no scored new attempt passed. */
  regressedTasks: GateTaskChange[];
  /** Tasks whose pass rate fell without flipping all the way (shown, not a rule). */
  worseTasks: GateTaskChange[];
  /** Tasks with checks failing now that never failed in the baseline. */
  newlyFailedChecks: GateTaskChange[];
  rules: GateRule[];
}

export interface GateEvaluation {
  verdict: 'PASS' | 'FAIL';
  agents: GateAgentResult[];
  versionMismatches: VersionMismatch[];
  /** `--min-strength`: the gated tasks' strength against the floor (a rule of the run, not of an agent). */
  strength?: GateStrength;
  /** One line per failed rule, naming the agent and the numbers. */
  failures: string[];
  notes: string[];
}

/** Tasks whose version differs between the baseline and what is about to run (or ran). */
export function versionMismatches(baseline: BaselineFile, current: ReadonlyArray<{ id: string; version: string }>): VersionMismatch[] {
  const now = new Map(current.map((t) => [t.id, t.version]));
  const seen = new Set<string>();
  const out: VersionMismatch[] = [];
  for (const e of baseline.entries) {
    const v = now.get(e.taskId);
    const key = `${e.taskId}\0${e.taskVersion}`;
    if (v === undefined || v === e.taskVersion || seen.has(key)) continue;
    seen.add(key);
    out.push({ taskId: e.taskId, baselineVersion: e.taskVersion, currentVersion: v });
  }
  return out.sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
}

/** The exit-2 error for changed tasks: which, both versions, and the two ways out. */
export function versionMismatchError(mismatches: readonly VersionMismatch[], baselineFile: string): InputError {
  const list = mismatches.map((m) => `${m.taskId} (baseline version ${JSON.stringify(m.baselineVersion)}, now ${JSON.stringify(m.currentVersion)})`).join(', ');
  return new InputError(
    `${mismatches.length === 1 ? 'task' : 'tasks'} ${list} changed since baseline ${baselineFile} was saved (fix: save a new baseline from a run of the current task set with \`crucible baseline save <run-id> --out ${baselineFile}\`, or pass --allow-version-mismatch to compare anyway)`,
  );
}

/** Which baseline agent each agent of the new run is measured against. */
export function pairAgents(
  baselineSpecs: readonly string[],
  currentSpecs: readonly string[],
  baselineFile: string,
): Array<[current: string, baseline: string]> {
  return currentSpecs.map((spec) => {
    if (baselineSpecs.includes(spec)) return [spec, spec];
    // The usual question, "is the new agent as good as the old one", has one agent on each side.
    if (baselineSpecs.length === 1) return [spec, baselineSpecs[0] as string];
    throw new InputError(
      `agent ${spec}: baseline ${baselineFile} has no such agent and more than one other (${baselineSpecs.join(', ')}) to compare it with (fix: gate one of ${baselineSpecs.join(', ')}, or gate ${spec} alone against a baseline with one agent)`,
    );
  });
}

/** A cell of either side: the baseline's cells carry their entry's task id. */
type Side = Pick<GateCell, 'taskId' | 'verdict' | 'cause' | 'failedChecks'>;

/**
 * Judges a run against a baseline, per agent, on the tasks both scored. The paired comparison is
 * `compareRuns` itself (the sign-flip test of `crucible compare`), with the baseline as run A.
 *
 * Rules (each can fail the gate; all are reported):
 *  - max-regressed-tasks: more PASS→FAIL tasks than allowed.
 *  - max-drop: the paired test separates the two with the baseline better AND the point drop
 *    exceeds the allowance. (A drop within the allowance, or one the test cannot tell from noise,
 *    passes; the interval is always shown.)
 *  - min-success-rate: the agent's pass rate on the shared tasks is below the floor.
 *  - min-strength (of the run): a task the run gated is below the strength floor, or unmeasured
 *    (`context.strength` is the run directory's strength.json; undefined when it has none).
 */
export function evaluateGate(
  baseline: BaselineFile,
  run: { runId: string; attempts: readonly RunAttemptOutcome[] },
  thresholds: GateThresholds,
  context: { baselineFile: string; versionMismatches: VersionMismatch[]; strength?: readonly TaskStrength[] },
): GateEvaluation {
  const baselineSpecs = unique(baseline.entries.map((e) => e.agent.spec));
  const currentSpecs = unique(run.attempts.map((a) => a.agent));
  const notes: string[] = [];
  const agents = pairAgents(baselineSpecs, currentSpecs, context.baselineFile).map(([agent, baselineAgent]) => {
    const base: Side[] = baseline.entries.filter((e) => e.agent.spec === baselineAgent).flatMap((e) => e.attempts.map((a) => ({ ...a, taskId: e.taskId })));
    const now: Side[] = run.attempts.filter((a) => a.agent === agent);
    const baseTasks = new Set(base.map((s) => s.taskId));
    const nowTasks = new Set(now.map((s) => s.taskId));
    const shared = [...baseTasks].filter((t) => nowTasks.has(t)).sort();
    const missing = [...baseTasks].filter((t) => !nowTasks.has(t)).sort();
    const added = [...nowTasks].filter((t) => !baseTasks.has(t)).sort();
    if (missing.length > 0) notes.push(`${agent}: ${missing.length} baseline task(s) not in this run, not compared: ${missing.join(', ')}`);
    if (added.length > 0) notes.push(`${agent}: ${added.length} task(s) not in the baseline, not compared: ${added.join(', ')}`);

    const baseCells = cells(baselineAgent, base, shared);
    const nowCells = cells(agent, now, shared);
    const compared = compareRuns({ runId: `baseline ${baseline.sourceRun}`, cells: baseCells }, { runId: run.runId, cells: nowCells });
    const pair = compared.pairs[0]?.comparison;
    const byTask = (list: CellCounts[]) => new Map(list.map((c) => [c.taskId, c]));
    const baseBy = byTask(baseCells);
    const nowBy = byTask(nowCells);

    const changes = shared.map((taskId): GateTaskChange & { flip: boolean; worse: boolean } => {
      const b = baseBy.get(taskId) as CellCounts;
      const c = nowBy.get(taskId) as CellCounts;
      const failedBefore = new Set(base.filter((s) => s.taskId === taskId).flatMap((s) => s.failedChecks));
      const newly = unique(now.filter((s) => s.taskId === taskId && scored(s)).flatMap((s) => s.failedChecks)).filter((id) => !failedBefore.has(id));
      const flip = b.n > 0 && b.passes === b.n && c.n > 0 && c.passes === 0;
      const worse = b.n > 0 && c.n > 0 && c.passes / c.n < b.passes / b.n;
      return { taskId, baseline: { passes: b.passes, n: b.n }, current: { passes: c.passes, n: c.n }, newlyFailedChecks: newly, flip, worse };
    });
    const strip = ({ flip: _f, worse: _w, ...rest }: GateTaskChange & { flip: boolean; worse: boolean }): GateTaskChange => rest;
    const regressedTasks = changes.filter((c) => c.flip).map(strip);
    const worseTasks = changes.filter((c) => c.worse && !c.flip).map(strip);
    const newlyFailedChecks = changes.filter((c) => c.newlyFailedChecks.length > 0).map(strip);

    const rate = (list: CellCounts[]): number | null => {
      const n = list.reduce((s, c) => s + c.n, 0);
      return n === 0 ? null : list.reduce((s, c) => s + c.passes, 0) / n;
    };
    const passRate = rate(nowCells);
    const baselinePassRate = rate(baseCells);
    // compareRuns gives A − B with A the baseline; a gate reads new − baseline.
    const flipSign = (x: number | null | undefined): number | null => (x === null || x === undefined ? null : x === 0 ? 0 : -x);
    const comparison: GateAgentResult['comparison'] = {
      diff: flipSign(pair?.diff),
      low: flipSign(pair?.high),
      high: flipSign(pair?.low),
      pValue: pair?.pValue ?? null,
      verdict: pair?.verdict === 'A better' ? 'worse' : pair?.verdict === 'B better' ? 'better' : 'not separated',
      method: pair?.method ?? 'exact sign-flip',
      confidence: pair?.confidence ?? 0.95,
      ...(pair?.note ? { note: pair.note } : {}),
    };
    const rules = judge(thresholds, { passRate, comparison, regressedTasks });
    const identities = (list: AgentIdentity[]): AgentIdentity[] => uniqueBy(list, (x) => JSON.stringify(x));
    return {
      agent,
      baselineAgent,
      identity: identities(run.attempts.filter((a) => a.agent === agent).map((a) => agentIdentity(a.agent, a.agentInfo))),
      baselineIdentity: identities(baseline.entries.filter((e) => e.agent.spec === baselineAgent).map((e) => e.agent)),
      passRate,
      baselinePassRate,
      tasks: pair?.tasks ?? 0,
      comparison,
      regressedTasks,
      worseTasks,
      newlyFailedChecks,
      rules,
    } satisfies GateAgentResult;
  });
  for (const m of context.versionMismatches)
    notes.push(
      `task ${m.taskId} changed (baseline version ${JSON.stringify(m.baselineVersion)}, now ${JSON.stringify(m.currentVersion)}): compared anyway (--allow-version-mismatch)`,
    );
  for (const a of agents) {
    const before = a.baselineIdentity.map(identityText).join(', ');
    const after = a.identity.map(identityText).join(', ');
    if (before !== after) notes.push(`${a.agent}: measured against ${before}`);
  }
  const failures = agents.flatMap((a) => a.rules.filter((r) => !r.passed).map((r) => `${a.agent}: ${r.rule}: ${r.message}`));
  const strength =
    thresholds.minStrength === undefined
      ? undefined
      : judgeStrength(
          thresholds.minStrength,
          run.attempts.map((a) => a.taskId),
          context.strength,
        );
  if (strength && !strength.passed) failures.push(`min-strength: ${strength.message}`);
  return {
    verdict: failures.length > 0 ? 'FAIL' : 'PASS',
    agents,
    versionMismatches: context.versionMismatches,
    ...(strength ? { strength } : {}),
    failures,
    notes,
  };
}

function judge(t: GateThresholds, r: { passRate: number | null; comparison: GateAgentResult['comparison']; regressedTasks: GateTaskChange[] }): GateRule[] {
  const rules: GateRule[] = [];
  const n = r.regressedTasks.length;
  rules.push({
    rule: 'max-regressed-tasks',
    passed: n <= t.maxRegressedTasks,
    message: `${n} task(s) went PASS→FAIL${n > 0 ? ` (${r.regressedTasks.map((c) => `${c.taskId} ${c.baseline.passes}/${c.baseline.n}→${c.current.passes}/${c.current.n}`).join(', ')})` : ''}, at most ${t.maxRegressedTasks} allowed`,
  });
  const c = r.comparison;
  const interval =
    c.low === null || c.high === null
      ? 'no interval (no shared scored task)'
      : `${Math.round(c.confidence * 100)}% interval [${points(c.low)}, ${points(c.high)}]`;
  const p = c.pValue === null ? '' : `, p ${c.pValue.toFixed(3)}`;
  const drop = c.diff === null ? null : -c.diff * 100;
  const separatedWorse = c.verdict === 'worse';
  const dropFails = separatedWorse && drop !== null && drop > t.maxDrop + 1e-9;
  rules.push({
    rule: 'max-drop',
    passed: !dropFails,
    message: `${c.diff === null ? 'no change measured' : `change ${points(c.diff)}`}, ${interval}${p}; ${
      dropFails
        ? `worse beyond the allowed ${t.maxDrop} pts`
        : separatedWorse
          ? `worse, within the allowed ${t.maxDrop} pts`
          : c.verdict === 'better'
            ? 'better'
            : 'not separated from no change'
    }`,
  });
  if (t.minSuccessRate !== undefined) {
    const min = t.minSuccessRate;
    const ok = r.passRate !== null && r.passRate + 1e-9 >= min;
    rules.push({
      rule: 'min-success-rate',
      passed: ok,
      message: `pass rate ${r.passRate === null ? 'n/a (nothing scored)' : `${(r.passRate * 100).toFixed(1)}%`}, at least ${(min * 100).toFixed(1)}% required`,
    });
  }
  return rules;
}

/** Per task on the shared tasks: scored attempts and passes (harness and task errors left out, as everywhere). */
function cells(agent: string, sides: readonly Side[], tasks: readonly string[]): CellCounts[] {
  return tasks.map((taskId) => {
    const mine = sides.filter((s) => s.taskId === taskId);
    const scoredOnes = mine.filter(scored);
    return { agent, taskId, n: scoredOnes.length, passes: scoredOnes.filter((s) => s.verdict === 'PASS').length, errors: mine.length - scoredOnes.length };
  });
}

function scored(s: { cause: Cause }): boolean {
  return !UNSCORED_CAUSES.has(s.cause);
}

/** A difference of rates in signed percentage points, as `crucible compare` prints it. */
export function points(d: number): string {
  const text = Math.abs(d * 100).toFixed(1);
  return `${Number(text) === 0 ? '' : d > 0 ? '+' : '−'}${text} pts`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

function uniqueBy<T>(values: readonly T[], key: (v: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const v of values) if (!seen.has(key(v))) seen.set(key(v), v);
  return [...seen.values()];
}
