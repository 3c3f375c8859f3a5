import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import { createProgress, type ProgressStream } from '../../src/cli/progress.js';
import type { RunStartInfo } from '../../src/engine/index.js';
import type { AttemptPlan, AttemptResult, Verdict } from '../../src/core/types/index.js';

const plain = picocolors.createColors(false);

function stream(isTTY: boolean, columns = 80): ProgressStream & { text: string } {
  return {
    isTTY,
    columns,
    text: '',
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

/**
 * A minimal terminal: applies text, CR, LF, cursor-up (ESC[nA) and erase-below (ESC[J) the way a
 * real one does, and returns the lines on screen. Anything else the progress view might emit
 * (other escapes) makes the test fail, so the assertion covers every byte drawn.
 */
function screen(output: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  // eslint-disable-next-line no-control-regex
  for (const m of output.matchAll(/\u001b\[(\d*)([A-Za-z])|\n|\r|[^\u001b\n\r]+/g)) {
    const token = m[0];
    if (token === '\n') {
      row++;
      col = 0;
      if (lines.length <= row) lines.push('');
    } else if (token === '\r') col = 0;
    else if (m[2] === 'A') row = Math.max(0, row - Number(m[1] || 1));
    else if (m[2] === 'J') {
      lines.length = row + 1;
      lines[row] = (lines[row] ?? '').slice(0, col);
    } else if (m[2] !== undefined) throw new Error(`unexpected escape ${JSON.stringify(token)}`);
    else {
      const line = (lines[row] ?? '').padEnd(col);
      lines[row] = line.slice(0, col) + token + line.slice(col + token.length);
      col += token.length;
    }
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const start: RunStartInfo = { runId: 'r1', runDir: '/x', planned: 4, reused: 1, toRun: 3, concurrency: 2, resumed: true, rerun: [], superseded: 0 };

function plan(taskId: string, agent: string, trial = 0): AttemptPlan {
  return { attemptId: `${taskId}.${agent}.${trial}`, runId: 'r1', taskId, taskVersion: '1', agent, trial, index: 0 };
}

function result(p: AttemptPlan, verdict: Verdict, totalMs: number): AttemptResult {
  return {
    ...p,
    schemaVersion: 1,
    verdict,
    cause: verdict === 'PASS' ? 'passed' : verdict === 'FAIL' ? 'tests_failed' : 'harness_error',
    message: '',
    sandbox: 'local',
    checks: [],
    timings: { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs },
    startedAt: '',
    finishedAt: '',
  };
}

describe('progress without a TTY', () => {
  it('prints one plain line per event, with no cursor movement', () => {
    const out = stream(false);
    const progress = createProgress({ stream: out, colors: plain, env: {} });
    expect(progress.mode).toBe('plain');
    progress.onStart?.(start);
    const a = plan('js-slugify', 'oracle');
    progress.onAttemptStart?.(a);
    progress.onAttemptDone?.(result(a, 'PASS', 580));
    progress.onAttemptDone?.(result(plan('py-median', 'nop', 2), 'FAIL', 1200));
    progress.onStopping?.({ reason: 'interrupted', running: 1, graceMs: 10_000 });
    progress.onAttemptDiscarded?.(plan('ts-lru', 'nop'), 'interrupted before it could finish');
    progress.close();
    expect(out.text.split('\n')).toEqual([
      'run r1: 4 attempts, 1 reused from the checkpoint, 3 to run, 2 at a time',
      '[2/4] PASS  js-slugify oracle #0 580ms',
      '[3/4] FAIL  py-median nop #2 1.2s tests_failed',
      'stopping: no new attempts; 1 running get 10.0s to finish, then are killed (Ctrl-C again to kill now)',
      'CUT   ts-lru nop #0 interrupted before it could finish; it runs again on resume',
      '',
    ]);
  });

  it('holds the start-up lines until the first attempt starts, and drops them when discarded', () => {
    const startUp = (progress: ReturnType<typeof createProgress>) => {
      progress.onStart?.({ ...start, reused: 0, toRun: 4, resumed: false });
      progress.onPreflight?.({ tasks: 2 });
      progress.onTaskError?.('js-sortby', [{ file: 'tasks.yaml', field: 'tests.command', problem: 'no usable report', fix: 'make it write one' }]);
    };
    const out = stream(false);
    const progress = createProgress({ stream: out, colors: plain, env: {} });
    startUp(progress);
    expect(out.text).toBe('');
    progress.onAttemptStart?.(plan('js-slugify', 'oracle'));
    const lines = out.text.split('\n');
    expect(lines[0]).toBe('run r1: 4 attempts, 4 to run, 2 at a time');
    expect(lines[1]).toMatch(/^checking 2 tasks before any agent runs/);
    expect(lines[2]).toBe('task error js-sortby: its attempts do not run');
    expect(lines.length).toBeGreaterThan(3);

    // A run that never reaches an attempt and ends in its caller's one line prints none of them.
    const broken = stream(false);
    const ended = createProgress({ stream: broken, colors: plain, env: {} });
    startUp(ended);
    ended.discard();
    ended.close();
    expect(broken.text).toBe('');

    // One that ends normally without an attempt (all reused) prints them when it closes.
    const reused = stream(false);
    const whole = createProgress({ stream: reused, colors: plain, env: {} });
    whole.onStart?.(start);
    whole.close();
    expect(reused.text).toBe('run r1: 4 attempts, 1 reused from the checkpoint, 3 to run, 2 at a time\n');
  });

  it('uses plain lines in CI even on a TTY, and nothing at all when quiet', () => {
    expect(createProgress({ stream: stream(true), env: { CI: 'true' } }).mode).toBe('plain');
    expect(createProgress({ stream: stream(true), env: { TERM: 'dumb' } }).mode).toBe('plain');
    const out = stream(true);
    const quiet = createProgress({ stream: out, quiet: true, env: {} });
    quiet.onStart?.(start);
    quiet.onWarning?.('x');
    quiet.close();
    expect(quiet.mode).toBe('quiet');
    expect(out.text).toBe('');
  });
});

describe('progress on a TTY', () => {
  it('keeps a live block of counts, running attempts and ETA below the finished lines', () => {
    const out = stream(true, 70);
    let clock = 0;
    const progress = createProgress({ stream: out, colors: plain, env: {}, now: () => clock, refreshMs: 0, tickMs: 0 });
    expect(progress.mode).toBe('live');
    progress.onStart?.({ ...start, reused: 0, toRun: 4, resumed: false });
    const [a, b, c] = [plan('js-slugify', 'oracle'), plan('js-sortby', 'oracle'), plan('py-median', 'nop')];
    progress.onAttemptStart?.(a);
    progress.onAttemptStart?.(b);
    clock = 2000;
    expect(screen(out.text)).toEqual([
      'run r1: 4 attempts, 4 to run, 2 at a time',
      '0/4 · ✓ 0 · ✗ 0 · ! 0 · 2 running · 0ms · ETA …',
      '  ▸ js-slugify · oracle #0 · 0ms',
      '  ▸ js-sortby · oracle #0 · 0ms',
    ]);

    progress.onAttemptDone?.(result(a, 'PASS', 2000));
    progress.onAttemptStart?.(c);
    clock = 3000;
    progress.onAttemptDone?.(result(b, 'FAIL', 3000));
    // 2 done in 3 s → 1.5 s each → 2 left ≈ 3 s.
    expect(screen(out.text)).toEqual([
      'run r1: 4 attempts, 4 to run, 2 at a time',
      'PASS  js-slugify oracle #0 2.0s',
      'FAIL  js-sortby oracle #0 3.0s tests_failed',
      '2/4 · ✓ 1 · ✗ 1 · ! 0 · 1 running · 3.0s · ETA 3.0s',
      '  ▸ py-median · nop #0 · 1.0s',
    ]);

    progress.onStopping?.({ reason: 'interrupted', running: 1, graceMs: 10_000 });
    clock = 4000;
    progress.onAttemptStart?.(plan('a-task-with-a-very-long-name-that-would-wrap-the-terminal', 'openai:gpt-4.1-mini'));
    const lines = screen(out.text);
    expect(lines.at(-3)).toBe('  ▸ py-median · nop #0 · 2.0s');
    expect(lines.at(-2)).toBe('  ▸ a-task-with-a-very-long-name-that-would-wrap-the-terminal · open…');
    expect(lines.at(-1)).toBe('  stopping: no new attempts; 2 running get 9.0s to finish, then are …');
    // Nothing is wider than the terminal, or wrapping would break the redraw.
    for (const line of lines) expect(line.length).toBeLessThan(70);

    progress.close();
    expect(screen(out.text)).toEqual([
      'run r1: 4 attempts, 4 to run, 2 at a time',
      'PASS  js-slugify oracle #0 2.0s',
      'FAIL  js-sortby oracle #0 3.0s tests_failed',
    ]);
  });

  it('colours counts unless colours are off', () => {
    const out = stream(true);
    const progress = createProgress({ stream: out, colors: picocolors.createColors(true), env: {}, refreshMs: 0, tickMs: 0 });
    progress.onStart?.(start);
    progress.close();
    expect(out.text).toContain('\u001b[32m✓ 0');
  });
});
