import { setMaxListeners } from 'node:events';
import type { Agent } from '../domain/agents/index.js';
import type { AttemptPlan, AttemptResult, Task } from '../core/types/index.js';
import type { AttemptEnv } from './attempt.js';
import { crashedAttempt } from './crash.js';
import { schedule } from './scheduler.js';

export type AttemptRunner = (plan: AttemptPlan, task: Task, agent: Agent, env: AttemptEnv) => Promise<AttemptResult>;

/**
 * Thrown by a runner for an attempt it had queued ahead and withdrew before anyone ran it (the
 * distributed queue after a run cap or Ctrl-C): the loop records nothing, so resume runs it.
 */
export class AttemptWithdrawn extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'AttemptWithdrawn';
  }
}

/** How a run ended: every planned attempt has a result, or why not. */
export type RunEnd = 'completed' | 'fail-fast' | 'interrupted';

export interface FailedFast {
  attemptId: string;
  taskId: string;
  agent: string;
  trial: number;
  cause: string;
}

/** The loop's part of RunObserver. */
export interface LoopObserver {
  onAttemptStart?(plan: AttemptPlan): void;
  /** An attempt was cut off by an interrupt; it is not recorded and runs again on resume. */
  onAttemptDiscarded?(plan: AttemptPlan, reason: string): void;
  /** Scheduling stopped; `running` attempts are still finishing (for at most `graceMs` on interrupt). */
  onStopping?(info: { reason: Exclude<RunEnd, 'completed'>; running: number; graceMs: number }): void;
}

export interface AttemptLoop {
  attempts: readonly AttemptPlan[];
  concurrency: number;
  runner: AttemptRunner;
  /** Every attempt's environment; the loop adds the abort signal. */
  env: Omit<AttemptEnv, 'signal'>;
  task(id: string): Task;
  agent(spec: string): Agent;
  failFast?: boolean;
  /** Aborting stops scheduling; running attempts get `graceMs` to finish, then are aborted. */
  signal?: AbortSignal;
  /** Aborting aborts running attempts at once. */
  killSignal?: AbortSignal;
  graceMs: number;
  observer?: LoopObserver;
  /**
   * True once the machine cannot take more attempts (a full or read-only state directory): no new
   * attempt starts, running ones finish and are recorded; the caller says why the run stopped.
   */
  halted?: () => boolean;
  /** Checkpoints and records one finished attempt; false when it could not be checkpointed. Called one at a time. */
  record(result: AttemptResult, task: Task): Promise<boolean>;
}

/**
 * Runs the attempts with bounded concurrency and decides when to stop: after the first attempt
 * that does not pass (fail-fast: running ones finish), or on `signal` (running ones get the grace
 * period, then their abort signal fires and the sandbox kills their process trees). A result that
 * comes back after that abort is not evidence of anything and is dropped, so resume reruns it.
 * A runner that throws becomes a harness_error result; it never stops the others.
 */
export async function runAttempts(loop: AttemptLoop): Promise<{ ended: RunEnd; failedFast?: FailedFast }> {
  const hard = new AbortController();
  // Every attempt in flight listens on it (agent, sandbox commands): allow that many without a leak warning.
  setMaxListeners(loop.concurrency * 8 + 10, hard.signal);
  const env: AttemptEnv = { ...loop.env, signal: hard.signal };
  let ended: RunEnd = 'completed';
  let failedFast: FailedFast | undefined;
  let running = 0;
  let graceTimer: NodeJS.Timeout | undefined;

  const stop = (reason: Exclude<RunEnd, 'completed'>): void => {
    if (ended !== 'completed') return;
    ended = reason;
    loop.observer?.onStopping?.({ reason, running, graceMs: reason === 'interrupted' ? loop.graceMs : Number.POSITIVE_INFINITY });
  };
  const onSignal = (): void => {
    stop('interrupted');
    graceTimer ??= setTimeout(() => hard.abort(), loop.graceMs);
  };
  const onKill = (): void => {
    stop('interrupted');
    hard.abort();
  };
  listen(loop.signal, onSignal);
  listen(loop.killSignal, onKill);

  // Recording is serialized: one checkpoint append and one history write at a time, in completion order.
  let recording = Promise.resolve();
  const runOne = async (item: AttemptPlan): Promise<void> => {
    const task = loop.task(item.taskId);
    running++;
    loop.observer?.onAttemptStart?.(item);
    const startedAt = new Date();
    let result: AttemptResult;
    try {
      result = await loop.runner(item, task, loop.agent(item.agent), env);
    } catch (error) {
      if (error instanceof AttemptWithdrawn) {
        running--;
        loop.observer?.onAttemptDiscarded?.(item, error.reason);
        return;
      }
      // runAttempt never throws by contract; if something still escapes, it is the harness's failure.
      result = crashedAttempt(item, String(env.sandbox), startedAt, error);
    }
    running--;
    if (hard.signal.aborted) {
      loop.observer?.onAttemptDiscarded?.(item, 'interrupted before it could finish');
      return;
    }
    const recorded = recording.then(() => loop.record(result, task));
    recording = recorded.then(
      () => undefined,
      () => undefined,
    );
    if ((await recorded) && loop.failFast && result.verdict !== 'PASS' && ended === 'completed') {
      failedFast = { attemptId: result.attemptId, taskId: result.taskId, agent: result.agent, trial: result.trial, cause: result.cause };
      stop('fail-fast');
    }
  };

  try {
    await schedule(loop.attempts, loop.concurrency, runOne, () => ended !== 'completed' || loop.halted?.() === true);
    await recording;
  } finally {
    clearTimeout(graceTimer);
    loop.signal?.removeEventListener('abort', onSignal);
    loop.killSignal?.removeEventListener('abort', onKill);
  }
  return failedFast ? { ended, failedFast } : { ended };
}

function listen(signal: AbortSignal | undefined, handler: () => void): void {
  if (signal === undefined) return;
  if (signal.aborted) handler();
  else signal.addEventListener('abort', handler, { once: true });
}
