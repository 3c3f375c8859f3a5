import { describe, expect, it } from 'vitest';
import { aggregateRun, wilson } from '../../src/domain/stats/index.js';
import { UNASSIGNED_REPO, type AgentResult, type AgentStats, type AttemptResult, type Cause, type RunStats, type Usage } from '../../src/core/types/index.js';

interface AttemptSpec {
  agent: string;
  taskId: string;
  cause: Cause;
  trial?: number;
  usage?: Partial<Usage>;
  turns?: number;
  toolCalls?: number;
  totalMs?: number;
  agentMs?: number;
  verdict?: AttemptResult['verdict'];
}

let nextId = 0;

function attempt(spec: AttemptSpec): AttemptResult {
  const id = nextId++;
  const verdict = spec.verdict ?? (spec.cause === 'passed' ? 'PASS' : spec.cause === 'harness_error' ? 'ERROR' : 'FAIL');
  const agentResult: AgentResult = { stopReason: 'end_turn' };
  if (spec.usage !== undefined) {
    agentResult.usage = {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      requests: 1,
      ...spec.usage,
    };
  }
  if (spec.turns !== undefined) agentResult.turns = spec.turns;
  if (spec.toolCalls !== undefined) agentResult.toolCalls = spec.toolCalls;
  const result: AttemptResult = {
    attemptId: `att-${id}`,
    runId: 'run-1',
    taskId: spec.taskId,
    taskVersion: '1',
    agent: spec.agent,
    trial: spec.trial ?? 0,
    index: id,
    schemaVersion: 1,
    verdict,
    cause: spec.cause,
    message: spec.cause,
    sandbox: 'local',
    checks: [],
    agentResult,
    timings: { prepareMs: 1, agentMs: spec.agentMs ?? 10, verifyMs: 1, totalMs: spec.totalMs ?? 12 },
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:00:01.000Z',
  };
  if (spec.cause === 'harness_error') result.harnessError = { phase: 'prepare', message: 'setup failed' };
  return result;
}

/** `trials` attempts per task for one agent, the cause of each chosen by `cause(task, trial)`. */
function sweep(agent: string, tasks: number, trials: number, cause: (task: number, trial: number) => Cause): AttemptResult[] {
  const out: AttemptResult[] = [];
  for (let t = 0; t < tasks; t++) {
    for (let trial = 0; trial < trials; trial++) out.push(attempt({ agent, taskId: `task-${t}`, trial, cause: cause(t, trial) }));
  }
  return out;
}

function agentOf(stats: RunStats, name: string): AgentStats {
  const found = stats.agents.find((a) => a.agent === name);
  if (found === undefined) throw new Error(`no agent ${name}`);
  return found;
}

describe('aggregateRun', () => {
  const oracleVsNop = [...sweep('oracle', 6, 3, () => 'passed'), ...sweep('nop', 6, 3, () => 'no_changes')];

  it('rates oracle at 1 and nop at 0 over 6 tasks × 3 trials, pooled by task', () => {
    const stats = aggregateRun(oracleVsNop, { seed: 7, wilsonFloor: false });
    const oracle = agentOf(stats, 'oracle');
    expect(oracle.passRate).toEqual({ rate: 1, low: 1, high: 1, n: 18, tasks: 6, method: 'clustered-bootstrap' });
    expect(agentOf(stats, 'nop').passRate).toMatchObject({ rate: 0, n: 18, tasks: 6 });
    expect(oracle.causes.passed).toBe(18);
    expect(agentOf(stats, 'nop').causes.no_changes).toBe(18);
  });

  it('separates oracle from nop by paired comparison, naming agents in sorted order', () => {
    const stats = aggregateRun(oracleVsNop, { seed: 7 });
    expect(stats.comparisons).toHaveLength(1);
    expect(stats.comparisons[0]).toMatchObject({ a: 'nop', b: 'oracle', verdict: 'B better', diff: -1, tasks: 6 });
  });

  it('with the floor on, widens a zero-width paired interval to Newcombe on pooled counts and still separates', () => {
    const stats = aggregateRun(oracleVsNop, { seed: 7 });
    const c = stats.comparisons[0];
    expect(c).toMatchObject({ verdict: 'B better', diff: -1, floor: 'newcombe', low: -1 });
    expect(c?.high).toBeGreaterThan(-0.9);
    expect(c?.high).toBeLessThan(-0.5);
    // Without the floor the same data gives the degenerate interval [−1, −1].
    const plain = aggregateRun(oracleVsNop, { seed: 7, wilsonFloor: false }).comparisons[0];
    expect(plain?.low).toBe(-1);
    expect(plain?.high).toBeCloseTo(-1, 6);
  });

  it('with the floor on, a separation the pooled counts cannot support becomes "not separated"', () => {
    // 6 tasks × 4 trials: A passes 2 of 4 on every task, B 1 of 4. Every task leans the same way,
    // so the sign-flip test separates them (p = 2/64), but 12/24 against 6/24 is within noise.
    const a = sweep('a', 6, 4, (_t, trial) => (trial < 2 ? 'passed' : 'tests_failed'));
    const b = sweep('b', 6, 4, (_t, trial) => (trial < 1 ? 'passed' : 'tests_failed'));
    const plain = aggregateRun([...a, ...b], { seed: 3, wilsonFloor: false }).comparisons[0];
    const floored = aggregateRun([...a, ...b], { seed: 3 }).comparisons[0];
    expect(plain?.verdict).toBe('A better');
    expect(floored?.floor).toBe('newcombe');
    expect(floored?.low).toBeLessThan(0);
    expect(floored?.verdict).toBe('not separated');
  });

  it('does not separate two agents with identical outcomes', () => {
    const outcome = (t: number, trial: number): Cause => ((t + trial) % 2 === 0 ? 'passed' : 'tests_failed');
    const stats = aggregateRun([...sweep('a', 6, 3, outcome), ...sweep('b', 6, 3, outcome)]);
    expect(stats.comparisons[0]).toMatchObject({ verdict: 'not separated', diff: 0 });
  });

  it('compares every pair of agents', () => {
    const stats = aggregateRun([...sweep('a', 2, 1, () => 'passed'), ...sweep('b', 2, 1, () => 'passed'), ...sweep('c', 2, 1, () => 'passed')]);
    expect(stats.comparisons.map((c) => [c.a, c.b])).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ]);
  });

  it('excludes harness errors from the pass-rate denominator and counts them apart', () => {
    const stats = aggregateRun([
      attempt({ agent: 'x', taskId: 't', cause: 'passed' }),
      attempt({ agent: 'x', taskId: 't', cause: 'passed' }),
      attempt({ agent: 'x', taskId: 't', cause: 'tests_failed' }),
      attempt({ agent: 'x', taskId: 't', cause: 'harness_error' }),
    ]);
    const x = agentOf(stats, 'x');
    expect(x.attempts).toBe(4);
    expect(x.scored).toBe(3);
    expect(x.passes).toBe(2);
    expect(x.harnessErrors).toEqual({ count: 1, attempts: 4, rate: wilson(1, 4) });
    const w = wilson(2, 3);
    expect(x.passRate).toEqual({ rate: 2 / 3, low: w?.low, high: w?.high, n: 3, tasks: 1, method: 'wilson' });
    expect(stats.harnessErrors.count).toBe(1);
    expect(stats.scored).toBe(3);
  });

  it('reports the pass rate as n/a when every attempt errored', () => {
    const stats = aggregateRun([
      attempt({ agent: 'broken', taskId: 't', cause: 'harness_error' }),
      attempt({ agent: 'broken', taskId: 't', cause: 'harness_error' }),
    ]);
    const broken = agentOf(stats, 'broken');
    expect(broken.passRate).toBeNull();
    expect(broken.scored).toBe(0);
    expect(broken.harnessErrors.count).toBe(2);
    expect(broken.passK.every((p) => !p.estimable)).toBe(true);
    expect(broken.costUsd).toEqual({ missing: 0, stats: null });
    expect(stats.cells[0]?.interval).toBeNull();
    expect(stats.notes.join('\n')).toMatch(/no scored attempts.*broken/);
  });

  it('computes pass@k and pass^k averaged over tasks for k up to the fewest scored trials', () => {
    // task-0: 1 of 3 passes; task-1: 3 of 3.
    const stats = aggregateRun(
      sweep('a', 2, 3, (t, trial) => (t === 1 || trial === 0 ? 'passed' : 'tests_failed')),
      {
        ks: [1, 2, 3],
      },
    );
    const a = agentOf(stats, 'a');
    const byK = new Map(a.passK.map((p) => [p.k, p]));
    const at = (k: number) => {
      const p = byK.get(k);
      if (p === undefined || !p.estimable) throw new Error(`k=${k} not estimable`);
      return p;
    };
    expect(at(1).passAtK.value).toBeCloseTo((1 / 3 + 1) / 2, 12);
    expect(at(1).passAtK.value).toBeCloseTo(a.passRate?.rate ?? Number.NaN, 12);
    expect(at(2).passAtK.value).toBeCloseTo((2 / 3 + 1) / 2, 12);
    expect(at(3).passAtK.value).toBe(1);
    expect(at(2).passHatK.value).toBeCloseTo((0 + 1) / 2, 12);
    expect(at(3).passHatK.value).toBeCloseTo(0.5, 12);
    expect(at(3).passAtK.tasks).toBe(2);
    expect(at(3).passHatK.low).toBeLessThanOrEqual(0.5);
    expect(at(3).passHatK.high).toBeGreaterThanOrEqual(0.5);
  });

  it('defaults ks to 1 and the most trials, and skips a k above the fewest scored trials', () => {
    const stats = aggregateRun([
      ...sweep('a', 2, 3, () => 'passed'),
      attempt({ agent: 'a', taskId: 'task-2', cause: 'passed' }),
      attempt({ agent: 'a', taskId: 'task-2', cause: 'passed' }),
      attempt({ agent: 'a', taskId: 'task-2', cause: 'harness_error' }),
    ]);
    expect(stats.ks).toEqual([1, 3]);
    const a = agentOf(stats, 'a');
    expect(a.minScoredTrials).toBe(2);
    expect(a.passK[0]).toMatchObject({ k: 1, estimable: true });
    expect(a.passK[1]).toMatchObject({ k: 3, estimable: false });
  });

  it('leaves the pass@k interval null for a single task', () => {
    const stats = aggregateRun(sweep('a', 1, 2, () => 'passed'));
    expect(agentOf(stats, 'a').passK[0]).toMatchObject({ estimable: true, passAtK: { value: 1, low: null, high: null, tasks: 1 } });
  });

  it('rejects invalid k values', () => {
    expect(() =>
      aggregateRun(
        sweep('a', 1, 1, () => 'passed'),
        { ks: [0] },
      ),
    ).toThrow(RangeError);
  });

  it('describes cost only from attempts that have it and counts the ones that do not', () => {
    const stats = aggregateRun([
      attempt({ agent: 'm', taskId: 't', cause: 'passed', usage: { costUsd: 0.1, inputTokens: 100, outputTokens: 20 } }),
      attempt({ agent: 'm', taskId: 't', cause: 'passed', usage: { costUsd: 0.3, inputTokens: 300, outputTokens: 40 } }),
      attempt({ agent: 'm', taskId: 't', cause: 'tests_failed', usage: { inputTokens: 200, outputTokens: 30 } }),
      attempt({ agent: 'm', taskId: 't', cause: 'tests_failed' }),
      attempt({ agent: 'm', taskId: 't', cause: 'harness_error', usage: { costUsd: 9, inputTokens: 9000 } }),
    ]);
    const m = agentOf(stats, 'm');
    expect(m.costUsd.missing).toBe(2);
    expect(m.costUsd.stats?.n).toBe(2);
    expect(m.costUsd.stats?.mean).toBeCloseTo(0.2, 12);
    expect(m.tokens.input.missing).toBe(1);
    expect(m.tokens.input.stats).toMatchObject({ n: 3, mean: 200, min: 100, max: 300, median: 200 });
    expect(m.tokens.total.stats).toMatchObject({ n: 3, mean: 230, max: 340 });
  });

  it('describes latency, turns and tool calls over scored attempts', () => {
    const stats = aggregateRun([
      attempt({ agent: 'm', taskId: 't', cause: 'passed', totalMs: 100, agentMs: 80, turns: 4, toolCalls: 10 }),
      attempt({ agent: 'm', taskId: 't', cause: 'tests_failed', totalMs: 300, agentMs: 200, turns: 6 }),
      attempt({ agent: 'm', taskId: 't', cause: 'harness_error', totalMs: 5000, agentMs: 0 }),
    ]);
    const m = agentOf(stats, 'm');
    expect(m.latency.totalMs.stats).toMatchObject({ n: 2, mean: 200, min: 100, max: 300 });
    expect(m.latency.agentMs.stats).toMatchObject({ n: 2, mean: 140 });
    expect(m.turns).toMatchObject({ missing: 0, stats: { n: 2, mean: 5 } });
    expect(m.toolCalls).toMatchObject({ missing: 1, stats: { n: 1, mean: 10, sd: null } });
  });

  it('builds one cell per agent and task with its own Wilson interval', () => {
    const stats = aggregateRun([
      attempt({ agent: 'a', taskId: 't2', cause: 'passed' }),
      attempt({ agent: 'a', taskId: 't1', cause: 'passed' }),
      attempt({ agent: 'a', taskId: 't1', cause: 'tests_failed' }),
      attempt({ agent: 'a', taskId: 't1', cause: 'harness_error' }),
    ]);
    expect(stats.cells.map((c) => c.taskId)).toEqual(['t1', 't2']);
    expect(stats.cells[0]).toEqual({
      agent: 'a',
      taskId: 't1',
      repo: UNASSIGNED_REPO,
      attempts: 3,
      harnessErrors: 1,
      n: 2,
      passes: 1,
      interval: wilson(1, 2),
    });
  });

  describe('repo profiles', () => {
    const taskRepo = new Map([
      ['r1-a', 'repo-one'],
      ['r1-b', 'repo-one'],
      ['r2-a', 'repo-two'],
    ]);
    const attempts = [
      attempt({ agent: 'a', taskId: 'r1-a', cause: 'passed', turns: 2, toolCalls: 3, usage: { inputTokens: 10, outputTokens: 5 } }),
      attempt({ agent: 'a', taskId: 'r1-a', cause: 'regression', turns: 4, toolCalls: 5 }),
      attempt({ agent: 'a', taskId: 'r1-b', cause: 'tampered' }),
      attempt({ agent: 'a', taskId: 'r1-b', cause: 'policy_violation' }),
      attempt({ agent: 'a', taskId: 'r1-b', cause: 'harness_error' }),
      attempt({ agent: 'b', taskId: 'r1-a', cause: 'passed' }),
      attempt({ agent: 'a', taskId: 'r2-a', cause: 'passed', usage: { costUsd: 0.5 } }),
    ];

    it('profiles each repo with pass, regression and disqualification rates over scored attempts', () => {
      const stats = aggregateRun(attempts, { taskRepo });
      const [one, two] = stats.repos.profiles;
      expect(one?.repo).toBe('repo-one');
      expect(one?.agents).toEqual(['a', 'b']);
      expect(one).toMatchObject({ tasks: 2, attempts: 6, scored: 5 });
      expect(one?.harnessErrors.count).toBe(1);
      // Per task: r1-a has 2 passes of 3, r1-b 0 of 2; the rate is their task-weighted mean.
      expect(one?.passRate).toMatchObject({ rate: (2 / 3 + 0) / 2, n: 5, tasks: 2, method: 'clustered-bootstrap' });
      expect(one?.regressionRate?.rate).toBeCloseTo((1 / 3 + 0) / 2, 12);
      expect(one?.disqualificationRate?.rate).toBeCloseTo((0 + 1) / 2, 12);
      expect(one?.turns).toMatchObject({ missing: 3, stats: { n: 2, mean: 3 } });
      expect(one?.toolCalls.stats?.mean).toBe(4);
      expect(one?.totalTokens).toMatchObject({ missing: 4, stats: { n: 1, mean: 15 } });
      expect(two).toMatchObject({ repo: 'repo-two', agents: ['a'], tasks: 1, scored: 1 });
      expect(two?.passRate).toMatchObject({ rate: 1, method: 'wilson' });
      expect(two?.costUsd).toMatchObject({ missing: 0, stats: { n: 1, mean: 0.5 } });
    });

    it('warns that repos evaluated by different agent sets must not be ranked', () => {
      const stats = aggregateRun(attempts, { taskRepo });
      expect(stats.repos.comparable).toBe(false);
      expect(stats.repos.note).toMatch(/different agent sets/);
      expect(stats.notes).toContain(stats.repos.note);
    });

    it('calls repos comparable when the same agents evaluated each', () => {
      const same = attempts.filter((a) => a.agent === 'a');
      expect(aggregateRun(same, { taskRepo }).repos).toMatchObject({ comparable: true });
    });

    it('groups tasks without a repo key apart and says so', () => {
      const stats = aggregateRun([...attempts, attempt({ agent: 'a', taskId: 'orphan', cause: 'passed' })], { taskRepo });
      expect(stats.repos.profiles.map((p) => p.repo)).toContain(UNASSIGNED_REPO);
      expect(stats.notes.join('\n')).toMatch(/no repo key/);
    });
  });

  it('notes when agents were scored on different task sets', () => {
    const stats = aggregateRun([...sweep('a', 3, 1, () => 'passed'), ...sweep('b', 2, 1, () => 'passed')]);
    expect(stats.notes.join('\n')).toMatch(/different task sets/);
    expect(stats.comparisons[0]?.tasks).toBe(2);
  });

  it('notes attempts whose verdict disagrees with their cause and counts them by cause', () => {
    const stats = aggregateRun([attempt({ agent: 'a', taskId: 't', cause: 'tests_failed', verdict: 'PASS' })]);
    expect(agentOf(stats, 'a').passes).toBe(0);
    expect(stats.notes.join('\n')).toMatch(/disagrees/);
  });

  it('refuses an attempt listed twice', () => {
    const one = attempt({ agent: 'a', taskId: 't', cause: 'passed' });
    expect(() => aggregateRun([one, one])).toThrow(/more than once/);
  });

  it('survives JSON unchanged', () => {
    const stats = aggregateRun(oracleVsNop, { seed: 3 });
    expect(JSON.parse(JSON.stringify(stats))).toEqual(stats);
  });

  it('gives the same numbers whatever order the attempts arrive in', () => {
    const mixed = [
      ...sweep('a', 5, 2, (t, trial) => ((t * 3 + trial) % 4 === 0 ? 'tests_failed' : 'passed')),
      ...sweep('b', 5, 2, (t) => (t % 2 === 0 ? 'passed' : 'no_changes')),
    ];
    const forward = aggregateRun(mixed, { seed: 5 });
    const backward = aggregateRun([...mixed].reverse(), { seed: 5 });
    expect(backward).toEqual(forward);
  });

  it('handles a run with no attempts', () => {
    const stats = aggregateRun([]);
    expect(stats).toMatchObject({ attempts: 0, scored: 0, agents: [], cells: [], comparisons: [], ks: [1] });
    expect(stats.harnessErrors.rate).toBeNull();
  });

  describe('overfitting', () => {
    /** An attempt whose held-out tests ran with `severity` (info: informational, error: required). */
    function heldOut(spec: AttemptSpec & { heldOutPassed: boolean; severity?: 'info' | 'warning' | 'error' }): AttemptResult {
      const a = attempt(spec);
      const group = { total: 2, passed: spec.heldOutPassed ? 2 : 1, failing: spec.heldOutPassed ? [] : [{ id: 'h2', reason: 'failed' as const }] };
      a.heldOut = {
        command: 'x',
        exitCode: spec.heldOutPassed ? 0 : 1,
        timedOut: false,
        durationMs: 1,
        parsed: 2,
        consistent: true,
        failToPass: { total: 0, passed: 0, failing: [] },
        passToPass: group,
        outputTail: '',
      };
      a.checks = [{ id: 'held_out', passed: spec.heldOutPassed, severity: spec.severity ?? 'info', message: '', evidence: {} }];
      return a;
    }

    it('counts passes that failed informational held-out tests, per agent', () => {
      const stats = aggregateRun([
        heldOut({ agent: 'a', taskId: 't1', cause: 'passed', heldOutPassed: false }),
        heldOut({ agent: 'a', taskId: 't1', trial: 1, cause: 'passed', heldOutPassed: true }),
        heldOut({ agent: 'a', taskId: 't1', trial: 2, cause: 'tests_failed', heldOutPassed: false }),
        heldOut({ agent: 'a', taskId: 't2', cause: 'passed', heldOutPassed: false, severity: 'warning' }),
        attempt({ agent: 'a', taskId: 't3', cause: 'passed' }),
        attempt({ agent: 'a', taskId: 't3', trial: 1, cause: 'harness_error' }),
      ]);
      expect(agentOf(stats, 'a').overfitting).toEqual({ attempts: 4, passes: 3, failedHeldOut: 2, rate: wilson(2, 3, 0.95) });
    });

    it('is absent without informational held-out tests: none at all, or required ones', () => {
      const stats = aggregateRun([
        attempt({ agent: 'plain', taskId: 't', cause: 'passed' }),
        heldOut({ agent: 'strict', taskId: 't', cause: 'passed', heldOutPassed: true, severity: 'error' }),
        heldOut({ agent: 'strict', taskId: 't', trial: 1, cause: 'tests_failed', heldOutPassed: false, severity: 'error' }),
      ]);
      expect(agentOf(stats, 'plain')).not.toHaveProperty('overfitting');
      expect(agentOf(stats, 'strict')).not.toHaveProperty('overfitting');
    });

    it('counts a pass whose informational held-out run never happened, and rates nothing without passes', () => {
      const missing = attempt({ agent: 'a', taskId: 't', cause: 'passed' });
      missing.checks = [{ id: 'held_out', passed: false, severity: 'info', message: 'held-out tests did not run', evidence: {} }];
      expect(agentOf(aggregateRun([missing]), 'a').overfitting).toMatchObject({ passes: 1, failedHeldOut: 1 });
      const failing = heldOut({ agent: 'b', taskId: 't', cause: 'tests_failed', heldOutPassed: false });
      expect(agentOf(aggregateRun([failing]), 'b').overfitting).toEqual({ attempts: 1, passes: 0, failedHeldOut: 0, rate: null });
    });
  });
});
