import { formatDefect } from '../domain/tasks/index.js';
import picocolors from 'picocolors';
import type { RunObserver, RunStartInfo } from '../engine/index.js';
import type { AttemptPlan, AttemptResult } from '../core/types/index.js';
import { formatDuration, stripAnsi } from './format.js';

type Colors = ReturnType<typeof picocolors.createColors>;

/** The part of a stream the progress view writes to; process.stderr or a fake in tests. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export type ProgressMode = 'live' | 'plain' | 'quiet';

export interface ProgressOptions {
  stream: ProgressStream;
  quiet?: boolean;
  /** Environment to read CI from; default process.env. */
  env?: Record<string, string | undefined>;
  colors?: Colors;
  now?: () => number;
  /** Minimum time between redraws of the live view; 0 redraws on every event (tests). */
  refreshMs?: number;
  /** How often the live view redraws on its own to advance clocks; 0 never (tests). */
  tickMs?: number;
}

export interface Progress extends RunObserver {
  readonly mode: ProgressMode;
  /** Prints a line above the live view (or plainly); held while start-up lines are (see createProgress). */
  log(line: string): void;
  /** Prints the lines held so far and stops holding: the run got past its start-up. */
  release(): void;
  /** Drops the lines held so far: the run ended before its first attempt in a way its caller says in one line. */
  discard(): void;
  /** Removes the live view, printing any line still held; call before printing the report. */
  close(): void;
}

/** A terminal that can redraw: a TTY, not in CI (CI logs keep every byte, so redraws become noise). */
export function progressMode(stream: ProgressStream, quiet: boolean | undefined, env: Record<string, string | undefined>): ProgressMode {
  if (quiet) return 'quiet';
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return stream.isTTY === true && !ci && env.TERM !== 'dumb' ? 'live' : 'plain';
}

const MAX_RUNNING_SHOWN = 6;

/**
 * The run's progress: done/total, pass/fail/error counts, what is running and for how long, and an
 * ETA. On a TTY it keeps a live block at the bottom of the screen and prints each finished attempt
 * above it; elsewhere it prints one plain line per event, with no cursor movement.
 *
 * The lines of the run's start-up (its plan, environments, agent setup, the preflight and the
 * tasks it finds broken, with their attempts) are held until the first attempt starts, or the run stops: a run
 * whose every task is broken then ends in the caller's one line (discard) instead of a screenful
 * before it. The live block still draws meanwhile, so a terminal shows the run is moving.
 */
export function createProgress(options: ProgressOptions): Progress {
  const env = options.env ?? process.env;
  const mode = progressMode(options.stream, options.quiet, env);
  const c = options.colors ?? picocolors;
  const now = options.now ?? Date.now;
  const out = options.stream;
  const refreshMs = options.refreshMs ?? 100;
  const tickMs = options.tickMs ?? 1000;

  const state = {
    startedAt: now(),
    planned: 0,
    reused: 0,
    toRun: 0,
    finished: 0,
    counts: { PASS: 0, FAIL: 0, ERROR: 0 },
    running: new Map<string, { plan: AttemptPlan; since: number }>(),
    stopping: undefined as undefined | { reason: string; graceMs: number; since: number },
  };
  let drawn = 0;
  let pending: NodeJS.Timeout | undefined;
  let lastDraw = 0;
  let ticker: NodeJS.Timeout | undefined;
  let closed = false;
  let held: string[] | undefined = [];

  const done = (): number => state.reused + state.finished;
  // From column 0: the terminal's own echo (`^C`) may have moved the cursor since the last draw.
  const clear = (): string => (drawn > 0 ? `\r\u001b[${drawn}A\u001b[J` : '');
  const width = (): number => Math.max(20, (out.columns ?? 80) - 1);
  const fit = (line: string): string => {
    // A line wider than the terminal wraps and breaks the cursor arithmetic; cut it instead.
    const plain = stripAnsi(line);
    return plain.length <= width() ? line : `${plain.slice(0, width() - 1)}…`;
  };

  const liveLines = (): string[] => {
    const t = now();
    const { PASS, FAIL, ERROR } = state.counts;
    const head = [
      c.bold(`${done()}/${state.planned}`),
      c.green(`✓ ${PASS}`),
      c.red(`✗ ${FAIL}`),
      ERROR > 0 ? c.yellow(`! ${ERROR}`) : c.dim('! 0'),
      `${state.running.size} running`,
      formatDuration(t - state.startedAt),
      eta(t),
    ].join(c.dim(' · '));
    const lines = [head];
    const running = [...state.running.values()];
    for (const r of running.slice(0, MAX_RUNNING_SHOWN)) {
      lines.push(c.dim(`  ▸ ${r.plan.taskId} · ${r.plan.agent} #${r.plan.trial} · ${formatDuration(t - r.since)}`));
    }
    if (running.length > MAX_RUNNING_SHOWN) lines.push(c.dim(`  … and ${running.length - MAX_RUNNING_SHOWN} more`));
    if (state.stopping) lines.push(c.yellow(`  ${stoppingText(state.stopping, t)}`));
    return lines.map(fit);
  };

  const eta = (t: number): string => {
    const remaining = state.toRun - state.finished;
    if (state.stopping) return 'stopping';
    if (remaining <= 0) return 'ETA 0s';
    if (state.finished === 0) return 'ETA …';
    // Throughput so far, concurrency included: elapsed per finished attempt times what is left.
    return `ETA ${formatDuration(((t - state.startedAt) / state.finished) * remaining)}`;
  };

  const draw = (): void => {
    if (mode !== 'live' || closed) return;
    clearTimeout(pending);
    pending = undefined;
    lastDraw = now();
    const lines = liveLines();
    out.write(`${clear()}${lines.join('\n')}\n`);
    drawn = lines.length;
  };

  const requestDraw = (): void => {
    if (mode !== 'live' || closed) return;
    if (refreshMs <= 0) return draw();
    if (pending !== undefined) return;
    const wait = Math.max(0, refreshMs - (now() - lastDraw));
    pending = setTimeout(draw, wait);
    pending.unref();
  };

  const log = (line: string): void => {
    if (mode === 'quiet' || closed) return;
    if (held !== undefined) {
      held.push(line);
      return;
    }
    if (mode === 'plain') {
      out.write(`${line}\n`);
      return;
    }
    out.write(`${clear()}${line}\n`);
    drawn = 0;
    draw();
  };

  const release = (): void => {
    const lines = held ?? [];
    held = undefined;
    for (const line of lines) log(line);
  };

  const verdictLabel = (r: AttemptResult): string => {
    const text = r.verdict.padEnd(5);
    return r.verdict === 'PASS' ? c.green(text) : r.verdict === 'FAIL' ? c.red(text) : c.yellow(text);
  };

  return {
    mode,
    log,
    release,
    discard() {
      if (held !== undefined) held = [];
    },
    onStart(info: RunStartInfo) {
      state.planned = info.planned;
      state.reused = info.reused;
      state.toRun = info.toRun;
      state.startedAt = now();
      const reused = info.resumed ? `, ${info.reused} reused from the checkpoint` : '';
      log(c.dim(`run ${info.runId}: ${info.planned} attempts${reused}, ${info.toRun} to run, ${info.concurrency} at a time`));
      for (const r of info.rerun) log(`${c.yellow('warning')} ${r.attemptId}: ${r.reason}; it runs again`);
      if (info.superseded > 0) log(`${c.yellow('warning')} ${info.superseded} recorded attempt(s) are not in the new plan and were removed from the run`);
      if (mode === 'live' && tickMs > 0) {
        ticker = setInterval(draw, tickMs);
        ticker.unref();
      }
      requestDraw();
    },
    onAttemptStart(plan) {
      release();
      state.running.set(plan.attemptId, { plan, since: now() });
      requestDraw();
    },
    onAttemptDone(result) {
      // A broken task's attempts end without starting (task_error): still start-up.
      if (state.running.has(result.attemptId)) release();
      state.running.delete(result.attemptId);
      state.finished++;
      state.counts[result.verdict]++;
      const why = result.cause === 'passed' ? '' : ` ${c.dim(result.cause)}`;
      const position = mode === 'plain' ? `[${done()}/${state.planned}] ` : '';
      log(
        `${position}${verdictLabel(result)} ${result.taskId} ${c.dim(`${result.agent} #${result.trial}`)} ${c.dim(formatDuration(result.timings.totalMs))}${why}`,
      );
    },
    onAttemptDiscarded(plan, reason) {
      release();
      state.running.delete(plan.attemptId);
      log(`${c.yellow('CUT  ')} ${plan.taskId} ${c.dim(`${plan.agent} #${plan.trial}`)} ${c.dim(`${reason}; it runs again on resume`)}`);
    },
    onStopping(info) {
      release();
      state.stopping = { reason: info.reason, graceMs: info.graceMs, since: now() };
      if (mode === 'plain') log(c.yellow(stoppingText(state.stopping, now(), info.running)));
      else requestDraw();
    },
    onWarning(message) {
      log(`${c.yellow('warning')} ${message}`);
    },
    onEnvironment(line) {
      log(c.dim(line));
    },
    onAgentSetup(line) {
      log(c.dim(line));
    },
    onPrepared(info) {
      const how = info.reused ? 'reused prepared tree' : 'built prepared tree (setup ran)';
      log(c.dim(`${info.taskId}: ${how} ${info.key.slice(0, 12)}`));
    },
    onPreflight(info) {
      log(c.dim(`checking ${info.tasks} task${info.tasks === 1 ? '' : 's'} before any agent runs (repo, baseline tests, oracle patch)`));
    },
    onTaskError(taskId, defects) {
      log(`${c.red('task error')} ${taskId}: its attempts do not run`);
      for (const d of defects) log(`  ${formatDefect(d)}`);
    },
    close() {
      if (closed) return;
      release();
      clearTimeout(pending);
      clearInterval(ticker);
      if (mode === 'live' && drawn > 0) out.write(clear());
      drawn = 0;
      closed = true;
    },
  };

  function stoppingText(s: { reason: string; graceMs: number; since: number }, t: number, running = state.running.size): string {
    if (s.reason === 'fail-fast') return `fail-fast: an attempt failed; no new attempts start, ${running} running will finish`;
    if (!Number.isFinite(s.graceMs)) return `stopping: ${running} running will finish`;
    const left = Math.max(0, s.graceMs - (t - s.since));
    return `stopping: no new attempts; ${running} running get ${formatDuration(left)} to finish, then are killed (Ctrl-C again to kill now)`;
  }
}
