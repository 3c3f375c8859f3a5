import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectContent, runChecks, type CheckInput } from '../../src/domain/checks/index.js';
import { judge, type Outcome } from '../../src/domain/grading/index.js';
import {
  replayAttemptDir,
  replayEvents,
  runMetamorphic,
  sealTrace,
  traceEvents,
  verifyChain,
  writeTrace,
  type TraceEvent,
} from '../../src/domain/trace/index.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { command, diffOf, input as checkInput, taskFor } from '../checks/helpers.js';

const KEY = 'AKIA' + 'Q3EGRTZ7ZXJ4UQ6P';
const LITERAL = 'correct-horse-battery-staple';
const RUNNER_LINE = 'process.exitCode = 0;';

const task = taskFor({ policy: { secrets: { paths: [], literals: [LITERAL], presets: ['cloud-keys'] } } });

/** The lines themselves, as the checks read them before detection was split out. */
function withLines(over: Omit<Partial<CheckInput>, 'task'> = {}): CheckInput {
  return checkInput({
    task,
    addedLines: {
      files: [
        {
          path: 'src/a.js',
          binary: false,
          lines: [
            { line: 1, text: `const key = "${KEY}";` },
            { line: 2, text: `const pass = "${LITERAL}";` },
            { line: 3, text: RUNNER_LINE },
          ],
        },
      ],
      complete: true,
    },
    ...over,
  });
}

/** A live CheckInput as verifyAttempt builds it: detection over the added lines, the checks judging its findings. */
function live(over: Omit<Partial<CheckInput>, 'task'> = {}): CheckInput {
  const base = withLines(over);
  const { addedLines, ...rest } = base;
  return { ...rest, content: over.content ?? detectContent(addedLines, base.policy.secrets.literals) };
}

function recorded(input: CheckInput): { result: AttemptResult; text: string } {
  const checks = runChecks(input);
  const agentResult = { stopReason: 'completed' as const };
  const outcome: Outcome = { kind: 'graded', checks, agentResult };
  const verdict = judge(outcome);
  const result = {
    attemptId: 't.oracle.0',
    runId: 'r',
    taskId: 't',
    taskVersion: 'v',
    agent: 'oracle',
    trial: 0,
    index: 0,
    sandbox: 'bwrap',
    agentResult,
    diff: input.diff,
    tests: input.tests,
    checks,
    ...verdict,
  } as unknown as AttemptResult;
  const events = traceEvents(result, input.commands, { outcome, evidence: { checkInput: input, blobs: {} } });
  return { result, text: sealTrace({ attemptId: result.attemptId, runId: result.runId }, events) };
}

describe('trace replay', () => {
  it('detection then judging gives what the checks gave on the lines themselves', () => {
    const split = runChecks(live());
    const whole = runChecks(withLines());
    expect(split).toEqual(whole);
    const secrets = split.find((c) => c.id === 'secrets');
    expect(secrets?.passed).toBe(false);
    expect(secrets?.message).toContain('aws-access-key-id in src/a.js:1');
    expect(secrets?.message).toContain('literal#1 in src/a.js:2');
    expect(split.find((c) => c.id === 'runner_internals')?.passed).toBe(false);
  });

  it('re-grades a trace to the recorded checks and verdict, with no content in it', () => {
    const { result, text } = recorded(live());
    expect(result.verdict).toBe('FAIL');
    expect(result.cause).toBe('tampered');
    for (const secret of [KEY, LITERAL, RUNNER_LINE]) expect(text).not.toContain(secret);
    const chain = verifyChain(text);
    expect(chain.ok).toBe(true);
    if (!chain.ok) return;
    const replay = replayEvents('t.oracle.0', chain.events);
    expect(replay.problem).toBeUndefined();
    expect(replay.match).toBe(true);
    expect(replay.replayed).toEqual({ verdict: 'FAIL', cause: 'tampered' });
    expect(replay.checks.filter((c) => !c.match)).toEqual([]);
    expect(replay.checks.map((c) => c.id)).toEqual(result.checks.map((c) => c.id));
  });

  it('a recorded verdict the evidence does not support is a mismatch', () => {
    const clean = live({ content: { files: [{ path: 'src/a.js', binary: false }], complete: true, findings: [] } });
    const { result } = recorded(clean);
    expect(result.checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(result.verdict).toBe('PASS');
    const forged = { ...result, verdict: 'FAIL', cause: 'tests_failed' } as AttemptResult;
    const text = sealTrace({ attemptId: 't.oracle.0', runId: 'r' }, traceEvents(forged, clean.commands, { evidence: { checkInput: clean, blobs: {} } }));
    const chain = verifyChain(text);
    if (!chain.ok) throw new Error(chain.reason);
    const replay = replayEvents('t.oracle.0', chain.events);
    expect(replay.match).toBe(false);
    expect(replay.problem).toMatch(/verdict PASS passed, recorded FAIL tests_failed/);
  });

  it('stores the outcome judged; a trace of the old shape (only its end) replays the same', () => {
    const { text } = recorded(live());
    const chain = verifyChain(text);
    if (!chain.ok) throw new Error(chain.reason);
    const verdict = chain.events.find((e) => e.type === 'verdict');
    expect(verdict?.data).toMatchObject({ end: 'graded', outcome: { kind: 'graded' } });
    // The same events as a trace written before outcomes were recorded: the verdict event without one.
    const old = chain.events.map(({ type, data }) => {
      if (type !== 'verdict') return { type, data };
      const { outcome: _outcome, ...rest } = data;
      return { type, data: rest };
    }) as TraceEvent[];
    const oldChain = verifyChain(sealTrace({ attemptId: 't.oracle.0', runId: 'r' }, old));
    if (!oldChain.ok) throw new Error(oldChain.reason);
    expect(oldChain.events.find((e) => e.type === 'verdict')?.data).not.toHaveProperty('outcome');
    expect(replayEvents('t.oracle.0', oldChain.events)).toMatchObject({ match: true, replayed: { verdict: 'FAIL', cause: 'tampered' } });
  });

  it('an early end replays through judge() on its stored outcome; an outcome its end contradicts is a mismatch', () => {
    const result = {
      attemptId: 't.agent.0',
      runId: 'r',
      taskId: 't',
      agent: 'agent',
      trial: 0,
      sandbox: 'bwrap',
      agentResult: { stopReason: 'completed' },
      ...judge({ kind: 'over_limit', limit: 'change_size', message: 'the change is 2 GB' }),
      checks: [],
    } as unknown as AttemptResult;
    const over: Outcome = { kind: 'over_limit', limit: 'change_size', message: 'the change is 2 GB' };
    const events = traceEvents(result, [], { outcome: over });
    const replay = (list: TraceEvent[]): ReturnType<typeof replayEvents> => {
      const chain = verifyChain(sealTrace({ attemptId: 't.agent.0', runId: 'r' }, list));
      if (!chain.ok) throw new Error(chain.reason);
      return replayEvents('t.agent.0', chain.events);
    };
    expect(replay(events)).toMatchObject({ match: true, end: 'resource', replayed: { verdict: 'FAIL', cause: 'resource_exceeded' } });
    // A stored outcome of another kind than the end recorded: the trace says two things.
    const contradicted = events.map((e) => (e.type === 'verdict' ? { ...e, data: { ...e.data, outcome: { kind: 'unverifiable' as const } } } : e));
    expect(replay(contradicted)).toMatchObject({ match: false, problem: 'the trace records an unverifiable outcome but ends as resource' });
    // The same end with an outcome judge() gives another verdict: not what was recorded.
    const harness = events.map((e) =>
      e.type === 'verdict' ? { ...e, data: { ...e.data, end: 'harness_error' as const, outcome: { kind: 'harness_fault' as const } } } : e,
    );
    expect(replay(harness)).toMatchObject({ match: false, replayed: { verdict: 'ERROR', cause: 'harness_error' } });
  });

  it('an attempt that ended before grading still gets a trace, from commands.jsonl, sanitized', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crucible-trace-early-'));
    try {
      const token = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
      const event = { ...command(`curl -H "Authorization: Bearer ${token}" https://example.test`), limitExceeded: 'memory' };
      writeFileSync(join(dir, 'commands.jsonl'), `${JSON.stringify(event)}\n`);
      const result = {
        attemptId: 't.agent.0',
        runId: 'r',
        taskId: 't',
        agent: 'agent',
        trial: 0,
        sandbox: 'bwrap',
        agentResult: { stopReason: 'completed' },
        verdict: 'FAIL',
        cause: 'resource_exceeded',
        resourceLimit: 'workspace_files',
        message: 'workspace_files: too many files',
        score: 0,
        checks: [],
      } as unknown as AttemptResult;
      expect(await writeTrace(dir, result)).toBe(true);
      const text = readFileSync(join(dir, 'trace.jsonl'), 'utf8');
      expect(text).not.toContain(token);
      expect(text).toContain('"type":"command"');
      const replay = await replayAttemptDir(dir);
      expect(replay).toMatchObject({ match: true, end: 'resource', recorded: { verdict: 'FAIL', cause: 'resource_exceeded' } });
      expect(replay.note).toMatch(/ended before grading/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('metamorphic: reordering commands and changed files keeps the verdict; the must-change ones change it', () => {
    const clean = live({
      diff: diffOf([{ path: 'src/a.js' }, { path: 'src/b.js' }]),
      commands: [command('npm test'), command('ls src')],
      content: {
        files: [
          { path: 'src/a.js', binary: false },
          { path: 'src/b.js', binary: false },
        ],
        complete: true,
        findings: [],
      },
    });
    const { result, text } = recorded(clean);
    expect(result.verdict).toBe('PASS');
    const report = runMetamorphic(text);
    expect(report.problem).toBeUndefined();
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r.seen ?? `skipped: ${r.skipped ?? ''}`]));
    expect(byId).toMatchObject({
      'reorder-commands': 'same',
      'reorder-file-changes': 'same',
      'rename-unrelated-file': 'same',
      'touch-test-file': 'changed',
      'drop-fail-to-pass': 'changed',
      'edit-without-rehash': 'rejected',
      truncate: 'rejected',
    });
    expect(report.results.filter((r) => r.agree === false)).toEqual([]);
  });
});
