import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { guardCounts } from '../../src/domain/guard/counts.js';
import { aggregateRun } from '../../src/domain/stats/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { RUN_SCHEMA_VERSION, toSummaryRow, type AttemptResult, type CheckResult, type GuardSummary, type RunSummary } from '../../src/core/types/index.js';

/*
 * Attempts shaped like the engine's (every field of AttemptResult), with the evidence files an
 * attempt directory holds, recorded into a real history with the store API.
 */

export const RUN_ID = '20261130-101500-abcd';

const passCheck = (id: string, severity: CheckResult['severity'] = 'error'): CheckResult => ({ id, passed: true, severity, message: `${id} ok`, evidence: {} });

export function attempt(over: Partial<AttemptResult> & Pick<AttemptResult, 'taskId' | 'agent'>): AttemptResult {
  const trial = over.trial ?? 0;
  const verdict = over.verdict ?? 'PASS';
  return {
    attemptId: `${over.taskId}.${over.agent.replace(/[^A-Za-z0-9]/g, '-')}.${trial}.0123456789`,
    runId: RUN_ID,
    taskVersion: '1',
    trial,
    index: 0,
    schemaVersion: 1,
    verdict,
    cause: verdict === 'PASS' ? 'passed' : verdict === 'ERROR' ? 'harness_error' : 'tests_failed',
    message: verdict === 'PASS' ? 'F2P 1/1, P2P 2/2' : 'fail-to-pass failing: t::a (failed)',
    score: verdict === 'ERROR' ? undefined : verdict === 'PASS' ? 100 : 40,
    sandbox: 'bwrap',
    baselineCommit: 'd7b36216befa92bebd6e439d72b831b00995216a',
    checks: [passCheck('tests'), passCheck('regression'), passCheck('test_tampering', 'critical')],
    timings: { prepareMs: 100, agentMs: 2000, verifyMs: 900, totalMs: 3000 },
    startedAt: '2026-11-30T10:15:00.000Z',
    finishedAt: '2026-11-30T10:15:03.000Z',
    tests: {
      command: 'python3 -m pytest',
      exitCode: verdict === 'PASS' ? 0 : 1,
      timedOut: false,
      durationMs: 800,
      parsed: 3,
      consistent: true,
      failToPass: verdict === 'PASS' ? { total: 1, passed: 1, failing: [] } : { total: 1, passed: 0, failing: [{ id: 't::a', reason: 'failed' }] },
      passToPass: { total: 2, passed: 2, failing: [] },
      outputTail: '3 passed',
    },
    diff: { files: [{ path: 'src/a.py', kind: 'modified', binary: false, added: 2, deleted: 1 }], filesChanged: 1, added: 2, deleted: 1 },
    agentResult: {
      stopReason: 'completed',
      usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, requests: 3, costUsd: 0.012 },
      turns: 3,
      toolCalls: 4,
    },
    ...over,
  };
}

/** A failing attempt with a policy finding that names a file and line, and a hostile message. */
export function policyViolation(): AttemptResult {
  return attempt({
    taskId: 'py-median',
    agent: 'openai:gpt-4.1-mini',
    verdict: 'FAIL',
    cause: 'policy_violation',
    message: 'possible secrets added: aws-key in src/domain/config.py:12 </script><script>alert(1)</script>',
    checks: [
      passCheck('tests'),
      {
        id: 'secrets',
        passed: false,
        severity: 'critical',
        message: 'possible secrets added: aws-key in src/domain/config.py:12',
        evidence: { presets: ['cloud-keys'], findings: { items: [{ detector: 'aws-key', file: 'src/domain/config.py', line: 12 }], count: 1 } },
      },
      {
        id: 'forbidden_paths',
        passed: false,
        severity: 'error',
        message: 'changed forbidden paths: .github/workflows/ci.yml (.github/**)',
        evidence: { patterns: ['.github/**'], hits: { items: [{ path: '.github/workflows/ci.yml', pattern: '.github/**' }], count: 1 } },
      },
      {
        id: 'outside_writes',
        passed: false,
        severity: 'warning',
        message: 'changed outside the workspace: modified /home/user/.bashrc',
        evidence: { writes: { items: [{ kind: 'modified', path: '/home/user/.bashrc' }], count: 1 } },
      },
    ],
  });
}

/** Two agents × two tasks, plus a policy violation, a harness error and a held-out overfit. */
export function sampleAttempts(): AttemptResult[] {
  const list = [
    attempt({ taskId: 'js-slugify', agent: 'oracle' }),
    attempt({ taskId: 'py-median', agent: 'oracle' }),
    attempt({ taskId: 'js-slugify', agent: 'openai:gpt-4.1-mini', verdict: 'FAIL' }),
    policyViolation(),
    attempt({
      taskId: 'py-roman',
      agent: 'openai:gpt-4.1-mini',
      // Informational held-out tests (`required: false`): failing them leaves the pass standing.
      checks: [
        passCheck('tests'),
        passCheck('regression'),
        passCheck('test_tampering', 'critical'),
        {
          id: 'held_out',
          passed: false,
          severity: 'info',
          message: 'held_out 3/4: tests_held_out.test_roman::test_nine (failed)',
          evidence: { required: false },
        },
      ],
      heldOut: {
        command: 'pytest tests_held_out',
        exitCode: 1,
        timedOut: false,
        durationMs: 500,
        parsed: 4,
        consistent: true,
        failToPass: { total: 0, passed: 0, failing: [] },
        passToPass: { total: 4, passed: 3, failing: [{ id: 'tests_held_out.test_roman::test_nine', reason: 'failed' }] },
        outputTail: '1 failed, 3 passed',
      },
    }),
    attempt({
      taskId: 'py-roman',
      agent: 'oracle',
      verdict: 'ERROR',
      cause: 'harness_error',
      message: 'sandbox failed to start',
      harnessError: { phase: 'prepare', message: 'bwrap: setting up uid map: Permission denied' },
      tests: undefined,
      diff: undefined,
      checks: [],
      agentResult: undefined,
    }),
  ];
  return list.map((a, index) => ({ ...a, index }));
}

export function summaryOf(attempts: readonly AttemptResult[], runId = RUN_ID): RunSummary {
  // As the engine's buildSummary: only a run whose attempts the guard watched has `guard`.
  const guard = guardCounts(attempts);
  return {
    schemaVersion: RUN_SCHEMA_VERSION,
    runId,
    taskSet: 'examples/tasks.yaml',
    createdAt: '2026-11-30T10:15:00.000Z',
    finishedAt: '2026-11-30T10:16:00.000Z',
    planned: attempts.length,
    executed: attempts.length,
    stoppedEarly: false,
    counts: {
      PASS: attempts.filter((a) => a.verdict === 'PASS').length,
      FAIL: attempts.filter((a) => a.verdict === 'FAIL').length,
      ERROR: attempts.filter((a) => a.verdict === 'ERROR').length,
    },
    ...(guard.length > 0 ? { guard } : {}),
    attempts: attempts.map(toSummaryRow),
  };
}

export const SAMPLE_DIFF = `diff --git a/src/a.py b/src/a.py
index 1111111..2222222 100644
--- a/src/a.py
+++ b/src/a.py
@@ -1,3 +1,4 @@
 def median(values):
-    return values[len(values) // 2]
+    s = sorted(values)
+    return (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
 # end
`;

export const SAMPLE_JUNIT = `<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="3" failures="1">
<testcase classname="t" name="a" time="0.01"><failure message="assert 1 == 2">boom</failure></testcase>
<testcase classname="t" name="b" time="0.01"/>
<testcase classname="t" name="c" time="0.01"/>
</testsuite></testsuites>`;

/** Writes a run directory as the engine leaves it: attempt.json and evidence per attempt, summary.json. */
export function writeRunDir(stateDir: string, attempts: readonly AttemptResult[], runId = RUN_ID): string {
  const runDir = join(stateDir, 'runs', runId);
  for (const a of attempts) {
    const dir = join(runDir, 'attempts', a.attemptId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'attempt.json'), JSON.stringify(a, null, 2));
    writeFileSync(join(dir, 'diff.patch'), a.diff ? SAMPLE_DIFF : '');
    writeFileSync(join(dir, 'tests.junit.xml'), SAMPLE_JUNIT);
    writeFileSync(
      join(dir, 'trajectory.jsonl'),
      [
        { type: 'message', role: 'user', at: '2026-11-30T10:15:00.100Z', content: 'Fix median()' },
        { type: 'tool_call', tool: 'read_file', at: '2026-11-30T10:15:01.000Z', input: { path: 'src/a.py' } },
        { type: 'tool_result', tool: 'read_file', at: '2026-11-30T10:15:01.050Z', output: 'def median(values): …' },
        'not json at all',
      ]
        .map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))
        .join('\n'),
    );
  }
  const summary = summaryOf(attempts, runId);
  writeFileSync(join(runDir, 'summary.json'), JSON.stringify({ ...summary, stats: aggregateRun(attempts) }, null, 2));
  return runDir;
}

/** Records a run the way the engine does: recordRun, recordAttempts, finishRun with the stats. */
export function recordRun(
  stateDir: string,
  attempts: readonly AttemptResult[],
  runId = RUN_ID,
  createdAt = '2026-11-30T10:15:00.000Z',
  storeStats = true,
): void {
  const history = openHistory(join(stateDir, 'history.db'));
  try {
    const agents = [...new Set(attempts.map((a) => a.agent))];
    history.recordRun({ runId, taskSet: 'examples/tasks.yaml', createdAt, planned: attempts.length, agents });
    history.recordAttempts(
      runId,
      attempts.map((attempt) => ({ attempt: { ...attempt, runId } })),
    );
    const s = summaryOf(attempts, runId);
    history.finishRun(runId, {
      finishedAt: s.finishedAt,
      executed: s.executed,
      stoppedEarly: false,
      counts: s.counts,
      ...(storeStats ? { stats: aggregateRun(attempts) } : {}),
    });
  } finally {
    history.close();
  }
}

/**
 * sampleAttempts as a `--guard enforce` run records them: every attempt whose agent ran carries the
 * guard's summary (the harness error in prepare never started one). Per agent this makes
 * openai:gpt-4.1-mini 2 of 3 attempts with incidents, 4 findings, 1 stopped, 2 blocked, 0 audit-only,
 * 5–40 ms; oracle 1 of 2, 2 findings, 0 stopped, 0 blocked, 2 audit-only, 80–300 ms.
 */
export function guardedAttempts(): AttemptResult[] {
  const clean: GuardSummary = { mode: 'enforce', watcher: 'inotify', incidents: 0, blocked: 0, stopped: false, auditOnly: 0 };
  const seen = (over: Partial<GuardSummary>): GuardSummary => ({ ...clean, incidentFile: 'incident.json', ...over });
  const byKey: Record<string, GuardSummary> = {
    'py-median|openai:gpt-4.1-mini': seen({ incidents: 3, blocked: 1, stopped: true, detectionMs: { min: 12, max: 40 } }),
    'js-slugify|openai:gpt-4.1-mini': seen({ incidents: 1, blocked: 1, detectionMs: { min: 5, max: 5 } }),
    'py-median|oracle': seen({ incidents: 2, auditOnly: 2, detectionMs: { min: 80, max: 300 } }),
  };
  return sampleAttempts().map((a) => (a.harnessError?.phase === 'prepare' ? a : { ...a, guard: byKey[`${a.taskId}|${a.agent}`] ?? clean }));
}
