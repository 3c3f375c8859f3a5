/*
 * A baseline file (`crucible baseline save`) read in the browser and set against one run's
 * attempts, task by task: the compare page's "against a baseline" view. Pure functions, no DOM,
 * so test/web tests them directly. The shape is the documented baseline v1 (docs/ci.md); the gate
 * (src/features/baseline) owns the format and its statistics, this only shows per-task flips.
 */

/** One attempt of the baseline's source run (`attempts[]` in the file). */
export interface BaselineTrial {
  trial: number;
  verdict: 'PASS' | 'FAIL' | 'ERROR';
  cause: string;
  failedChecks: string[];
}

/** Who ran: the agent spec as the run named it, with its model and an external agent's version. */
export interface BaselineAgent {
  spec: string;
  model?: string;
  agentVersion?: string;
  profileHash?: string;
}

export interface BaselineEntry {
  taskId: string;
  taskVersion: string;
  agent: BaselineAgent;
  attempts: BaselineTrial[];
}

export interface Baseline {
  version: 1;
  createdAt: string;
  sourceRun: string;
  taskSet: string;
  trials: number;
  entries: BaselineEntry[];
}

/** What the comparison needs from a run's attempt (AttemptListItem has it). */
export interface RunAttempt {
  taskId: string;
  agent: string;
  verdict: 'PASS' | 'FAIL' | 'ERROR';
}

export type BaselineChange = 'PASS→FAIL' | 'FAIL→PASS' | 'same' | 'not in run' | 'new in run' | 'errored';

export interface BaselineRow {
  taskId: string;
  /** The run's agent (the baseline's, for tasks the run did not attempt). */
  agent: string;
  baseline: { passes: number; n: number } | null;
  run: { passes: number; n: number; errors: number } | null;
  change: BaselineChange;
}

export interface BaselineComparison {
  rows: BaselineRow[];
  flips: { passToFail: number; failToPass: number };
  notes: string[];
}

export type ParsedBaseline = { ok: true; baseline: Baseline } | { ok: false; error: string };

const VERDICTS = ['PASS', 'FAIL', 'ERROR'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the documented shape; the error names the field, so a wrong file is obvious. */
export function parseBaseline(text: string): ParsedBaseline {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON: pick a file written by `crucible baseline save`' };
  }
  if (!isObject(data)) return { ok: false, error: 'expected a JSON object' };
  if (data.version !== 1) return { ok: false, error: `version: expected 1, got ${JSON.stringify(data.version)}` };
  if (!Array.isArray(data.entries)) return { ok: false, error: 'entries: expected a list' };
  for (const [i, entry] of data.entries.entries()) {
    const at = `entries[${i}]`;
    if (!isObject(entry)) return { ok: false, error: `${at}: expected an object` };
    if (typeof entry.taskId !== 'string') return { ok: false, error: `${at}.taskId: expected a string` };
    if (!isObject(entry.agent) || typeof entry.agent.spec !== 'string') return { ok: false, error: `${at}.agent.spec: expected a string` };
    if (!Array.isArray(entry.attempts)) return { ok: false, error: `${at}.attempts: expected a list` };
    for (const [j, trial] of entry.attempts.entries()) {
      if (!isObject(trial) || !VERDICTS.includes(String(trial.verdict)))
        return { ok: false, error: `${at}.attempts[${j}].verdict: expected PASS, FAIL or ERROR` };
    }
  }
  return { ok: true, baseline: data as unknown as Baseline };
}

/** A task counts as passing when at least half its scored trials passed. */
function passing(passes: number, n: number): boolean {
  return n > 0 && passes * 2 >= n;
}

function identities(entry: BaselineEntry): string[] {
  const { spec, model } = entry.agent;
  return [spec, ...(model ? [`${spec}:${model}`] : [])];
}

export function compareWithBaseline(baseline: Baseline, attempts: readonly RunAttempt[]): BaselineComparison {
  const notes: string[] = [];
  const runAgents = [...new Set(attempts.map((a) => a.agent))].sort();
  const baseAgents = [...new Set(baseline.entries.map((e) => e.agent.spec))].sort();
  // Which run agent each baseline entry speaks for: the same identity, or the only one of each.
  const agentOf = (entry: BaselineEntry): string | undefined => {
    const match = runAgents.find((a) => identities(entry).includes(a));
    if (match) return match;
    if (runAgents.length === 1 && baseAgents.length === 1) return runAgents[0];
    return undefined;
  };
  if (runAgents.length === 1 && baseAgents.length === 1 && runAgents[0] !== baseAgents[0]) {
    notes.push(`compared ${runAgents[0]} (run) with ${baseAgents[0]} (baseline): the only agent of each`);
  }

  const key = (taskId: string, agent: string): string => `${taskId}\u0000${agent}`;
  const runCells = new Map<string, { taskId: string; agent: string; passes: number; n: number; errors: number }>();
  for (const a of attempts) {
    const k = key(a.taskId, a.agent);
    const cell = runCells.get(k) ?? { taskId: a.taskId, agent: a.agent, passes: 0, n: 0, errors: 0 };
    if (a.verdict === 'ERROR') cell.errors += 1;
    else {
      cell.n += 1;
      if (a.verdict === 'PASS') cell.passes += 1;
    }
    runCells.set(k, cell);
  }

  const rows: BaselineRow[] = [];
  const seen = new Set<string>();
  for (const entry of baseline.entries) {
    const scored = entry.attempts.filter((t) => t.verdict !== 'ERROR');
    const base = { passes: scored.filter((t) => t.verdict === 'PASS').length, n: scored.length };
    const agent = agentOf(entry);
    const cell = agent === undefined ? undefined : runCells.get(key(entry.taskId, agent));
    if (cell) seen.add(key(cell.taskId, cell.agent));
    const run = cell ? { passes: cell.passes, n: cell.n, errors: cell.errors } : null;
    let change: BaselineChange;
    if (!run) change = 'not in run';
    else if (run.n === 0) change = 'errored';
    else if (passing(base.passes, base.n) && !passing(run.passes, run.n)) change = 'PASS→FAIL';
    else if (!passing(base.passes, base.n) && base.n > 0 && passing(run.passes, run.n)) change = 'FAIL→PASS';
    else change = 'same';
    rows.push({ taskId: entry.taskId, agent: agent ?? entry.agent.spec, baseline: base, run, change });
  }
  for (const [k, cell] of runCells) {
    if (seen.has(k)) continue;
    rows.push({ taskId: cell.taskId, agent: cell.agent, baseline: null, run: { passes: cell.passes, n: cell.n, errors: cell.errors }, change: 'new in run' });
  }
  // Regressions first, then improvements, then the rest; by task within each.
  const order: Record<BaselineChange, number> = { 'PASS→FAIL': 0, errored: 1, 'FAIL→PASS': 2, 'not in run': 3, 'new in run': 4, same: 5 };
  rows.sort((x, y) => order[x.change] - order[y.change] || x.taskId.localeCompare(y.taskId) || x.agent.localeCompare(y.agent));
  return {
    rows,
    flips: { passToFail: rows.filter((r) => r.change === 'PASS→FAIL').length, failToPass: rows.filter((r) => r.change === 'FAIL→PASS').length },
    notes,
  };
}
