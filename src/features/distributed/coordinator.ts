import { relative, resolve, sep } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { AgentProfile } from '../../domain/agents/index.js';
import type { AttemptEnv } from '../../engine/index.js';
import { AttemptWithdrawn, type AttemptRunner } from '../../engine/index.js';
import type { ModelRunOptions } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { judge } from '../../domain/grading/index.js';
import { ATTEMPT_SCHEMA_VERSION, type AttemptPlan, type AttemptResult } from '../../core/types/index.js';
import { downloadAttemptDir } from './artifacts.js';
import { ATTEMPT_JOB, type AttemptJobData, type AttemptJobResult } from './job.js';
import { shipInputs, type InputsRef } from './inputs.js';
import { PREFIX, queueName, takenKey } from './keys.js';
import { watchOutages } from './outage.js';
import { RedisPoolStore } from './redis-pool.js';
import type { PoolStore } from '../../infra/gateway/index.js';
import { endRun, isRegistered, registerRun } from './registration.js';
import { bullConnection, redisOptions, type QueueAddress } from './url.js';

export interface QueueRunnerOptions {
  address: QueueAddress;
  /** The run whose attempts this runner queues (its queue is `run.<runId>`). */
  runId: string;
  /** The task-set (or suite) file the run loads; it and what it references ship to workers. */
  taskSetPath: string;
  /** The coordinator's state directory, left out of what ships. */
  stateDir: string;
  agents: readonly string[];
  profiles?: ReadonlyMap<string, AgentProfile>;
  models?: ModelRunOptions;
  /** Tries per job for harness failures (a worker's sandbox missing, inputs that would not load); default 3. */
  tries?: number;
  /** First retry delay, doubled each time; default 5 s. */
  backoffMs?: number;
  onWarning?: (message: string) => void;
  /** One line per queue event worth knowing (a Redis outage and its end, a recovery). */
  onNotice?: (message: string) => void;
}

/** An AttemptRunner whose attempts run on workers, and what to do with the queue when the run ends. */
export interface QueueRunner {
  runner: AttemptRunner;
  /**
   * Ctrl-C, or a cap on the whole run reached: withdraws the queued jobs no worker has taken, so
   * only the running ones finish (within the grace period, on Ctrl-C) and are recorded; the
   * withdrawn attempts are not recorded and run on `resume`. `reason` is what the run's output says of them.
   */
  drain(reason?: string): Promise<void>;
  /** The run's caps (`--max-cost-total`, `--max-tokens-total`) as the workers hold them, in Redis; undefined without caps. */
  runPoolStore?: PoolStore;
  /** Closes the connections; after a completed run, also removes the run's queue and bookkeeping. */
  close(completed: boolean): Promise<void>;
}

/** How often jobs in flight are checked besides the completion events (which a Redis restart can drop). */
const POLL_MS = 1_000;
/** Polls of a completed job whose result cannot be read before it is recorded as a harness error. */
const UNREADABLE_READS = 5;

interface Session {
  runId: string;
  /** Replaced when the inputs ship again after Redis lost them. */
  queue: Queue;
  events: QueueEvents;
  inputs: InputsRef;
  models?: Omit<ModelRunOptions, 'env'>;
}
/** What a job of this attempt carries to a worker. */
function jobDataOf(options: QueueRunnerOptions, s: Session, plan: AttemptPlan, env: AttemptEnv): AttemptJobData {
  const shared = env.taskBaselines?.get(plan.taskId);
  // A worker may be another machine: the preflight's shared tree is a path on this one, so the worker prepares its own.
  const baseline = shared ? { run: shared.run, ...(shared.heldOut ? { heldOut: shared.heldOut } : {}) } : undefined;
  return {
    version: 1,
    plan,
    inputs: s.inputs,
    agents: [...options.agents],
    ...(options.profiles && options.profiles.size > 0 ? { profiles: usedProfiles(options.agents, options.profiles) } : {}),
    settings: {
      ...(env.baselineTests === false ? { baselineTests: false } : {}),
      ...(env.prepareCache === false ? { prepareCache: false } : {}),
    },
    ...(s.models ? { models: s.models } : {}),
    ...(baseline ? { baseline } : {}),
  };
}

/** Who waits for which job: woken by its completion events, the poll, a drain or a recovery. */
class JobWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  wake(jobId: string): void {
    for (const w of this.waiters.get(jobId) ?? []) w();
  }

  wakeAll(): void {
    for (const id of this.waiters.keys()) this.wake(id);
  }

  waitFor(jobId: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolveWait) => {
      let set = this.waiters.get(jobId);
      if (set === undefined) this.waiters.set(jobId, (set = new Set()));
      const waiting = set;
      const done = (): void => {
        waiting.delete(done);
        if (waiting.size === 0) this.waiters.delete(jobId);
        signal?.removeEventListener('abort', done);
        resolveWait();
      };
      waiting.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** A completed job's record, fetched and verified into the run directory; a result that fails verification is a harness error. */
async function accept(
  redis: Redis,
  options: QueueRunnerOptions,
  runId: string,
  plan: AttemptPlan,
  env: AttemptEnv,
  value: AttemptJobResult | undefined,
  startedAt: Date,
): Promise<AttemptResult> {
  try {
    if (value?.version !== 1) throw new Error(`a job result of version ${String(value?.version)}`);
    const result = await downloadAttemptDir(redis, env.runDir, { attemptId: plan.attemptId, runId: plan.runId }, value.files);
    await redis.hset(takenKey(runId), plan.attemptId, '1');
    // The record keeps the coordinator's plan position (a forced resume may have moved it).
    return result.index === plan.index ? result : { ...result, index: plan.index };
  } catch (error) {
    await redis.hset(takenKey(runId), plan.attemptId, '1');
    const why = error instanceof Error ? error.message : String(error);
    options.onWarning?.(`attempt ${plan.attemptId}: the worker's result failed verification (${why})`);
    return harnessFailure(plan, String(env.sandbox), startedAt, `the worker's result failed verification: ${why}`);
  }
}

/** Interrupted past the grace period: a job no worker took is withdrawn; a running one finishes and is read back on resume. */
async function abandon(queue: Queue, plan: AttemptPlan, startedAt: Date): Promise<AttemptResult> {
  const job = await queue.getJob(plan.attemptId);
  const state = job ? await job.getState() : 'unknown';
  if (job && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) await job.remove().catch(() => undefined);
  return harnessFailure(plan, 'queue', startedAt, 'interrupted');
}

/**
 * The coordinator's side. Each attempt the engine asks for becomes a job whose id is the attempt
 * id; the runner waits for it and returns the record the worker produced, after its files are
 * fetched, verified against their hashes and written into the run directory. Everything else —
 * plan, preflight, checkpoint, history, progress, statistics, reports — is the local engine's.
 * A job that was already done (a coordinator killed and resumed) is read back, not run again.
 */
export async function openQueueRunner(options: QueueRunnerOptions): Promise<QueueRunner> {
  const connection = bullConnection(options.address);
  const redis = new Redis(redisOptions(options.address));
  redis.on('error', () => undefined); // ioredis reconnects; commands wait (maxRetriesPerRequest: null).
  const notice = options.onNotice ?? (() => undefined);
  /** Settles once the run is in the run set; reset when Redis turns out to have lost it. */
  let registered: Promise<void> | undefined;
  let closing = false;
  /** Jobs being waited for, and those a drain withdrew (their attempts wait for the run's end, then are discarded). */
  const inFlight = new Set<string>();
  const withdrawn = new Set<string>();
  let draining = false;
  let withdrawReason = 'withdrawn from the queue before a worker took it';
  const waiters = new JobWaiters();
  const wake = (jobId: string): void => waiters.wake(jobId);
  /**
   * Redis lost the run (restarted without persistence, flushed, failed over to a replica that never
   * had it): the queue's state is rebuilt from this process alone. The inputs ship again, the run
   * is registered again, and every attempt still waited for is added again by its loop (woken
   * here); a job's id is its attempt id, so each stays one job.
   */
  let recovering: Promise<void> | undefined;
  const recover = (): Promise<void> => {
    if (recovering) return recovering;
    const pending = (async () => {
      if (registered === undefined || closing) return;
      const s = await session;
      if (await isRegistered(redis, s.runId)) return;
      notice(
        `queue: Redis lost run ${s.runId} (a restart without persistence, a flush or a failover); shipping its inputs again and re-adding its ${inFlight.size} unfinished attempt(s)`,
      );
      const shipped = await shipInputs(redis, options.taskSetPath, options.stateDir, cassetteRoots());
      s.inputs = shipped.ref;
      await registerRun(redis, s.runId);
      waiters.wakeAll();
    })();
    // Cleared after it settles (not inside it: a run that returns at once would clear it before it is set).
    recovering = pending.finally(() => {
      recovering = undefined;
    });
    return recovering;
  };
  const poll = setInterval(() => {
    waiters.wakeAll();
    if (redis.status === 'ready') void recover().catch(() => undefined);
  }, POLL_MS);
  poll.unref();
  const unwatch = watchOutages(redis, 'coordinator', options.address.url, notice, () => void recover().catch(() => undefined));
  const cassetteRoots = (): string[] => (options.models?.cassetteDir ? [resolve(options.models.cassetteDir)] : []);

  const open = async (runId: string): Promise<Session> => {
    const shipped = await shipInputs(redis, options.taskSetPath, options.stateDir, cassetteRoots());
    const queue = new Queue(queueName(runId), { connection, prefix: PREFIX });
    queue.on('error', () => undefined);
    const events = new QueueEvents(queueName(runId), { connection, prefix: PREFIX });
    events.on('error', () => undefined);
    events.on('completed', ({ jobId }) => wake(jobId));
    events.on('failed', ({ jobId }) => wake(jobId));
    const models = options.models ? modelsForWorkers(options.models, shipped.base) : undefined;
    return { runId, queue, events, inputs: shipped.ref, ...(models ? { models } : {}) };
  };

  // The task set ships before the run starts: a tree that cannot ship stops here, in one line.
  const session = open(options.runId);
  const opened = await session.catch((error: unknown) => error);
  if (opened instanceof Error) {
    clearInterval(poll);
    unwatch();
    redis.disconnect();
    throw new InputError(`--queue: the task set could not be shipped to the workers: ${opened.message} (fix: see docs/distributed.md, "Inputs")`);
  }

  const runner: AttemptRunner = async (plan, _task, _agent, env) => {
    const s = await session;
    if (s.runId !== plan.runId) throw new Error(`one queue runner serves one run (${s.runId}), not ${plan.runId}`);
    inFlight.add(plan.attemptId);
    try {
      return await runOnQueue(s, plan, env);
    } finally {
      inFlight.delete(plan.attemptId);
    }
  };

  const runOnQueue = async (s: Session, plan: AttemptPlan, env: AttemptEnv): Promise<AttemptResult> => {
    const startedAt = new Date();
    const jobId = plan.attemptId;
    const add = async (): Promise<void> => {
      const data = jobDataOf(options, s, plan, env);
      await s.queue.add(ATTEMPT_JOB, data, {
        jobId,
        attempts: options.tries ?? 3,
        backoff: { type: 'exponential', delay: options.backoffMs ?? 5_000 },
        removeOnComplete: false,
        removeOnFail: false,
      });
    };
    // Workers learn of the run when its first job is queued, not before (a run that fails to start leaves nothing).
    registered ??= registerRun(redis, s.runId);
    await registered;
    // A finished job this coordinator already took is a deliberate rerun (--retry-errors, changed
    // evidence): it runs again. One it never took finished while the coordinator was away: read back.
    const state = await s.queue.getJobState(jobId);
    if ((state === 'completed' || state === 'failed') && (await redis.hexists(takenKey(s.runId), jobId)) === 1) {
      await (await s.queue.getJob(jobId))?.remove();
      await redis.hdel(takenKey(s.runId), jobId);
    }
    if (draining) throw new AttemptWithdrawn(withdrawReason);
    await add();
    /** Reads of a completed job without a readable result: a few are a result still being written, more are a bad one. */
    let unreadable = 0;

    for (;;) {
      if (env.signal?.aborted) return abandon(s.queue, plan, startedAt);
      // The state first, then the job: a job read before its completion has no result yet, and
      // reading it as complete was the race that recorded finished attempts as ERROR.
      const current = await s.queue.getJobState(jobId);
      const job = current === 'unknown' ? undefined : await s.queue.getJob(jobId);
      if (job && current === 'completed') {
        const value = job.returnvalue as AttemptJobResult | null | undefined;
        if (value?.version === 1 || ++unreadable > UNREADABLE_READS) return accept(redis, options, s.runId, plan, env, value ?? undefined, startedAt);
        await waiters.waitFor(jobId, env.signal);
        continue;
      }
      if (job && current === 'failed') {
        await redis.hset(takenKey(s.runId), jobId, '1');
        const tries = job.attemptsMade;
        return harnessFailure(plan, String(env.sandbox), startedAt, `worker: ${job.failedReason} (after ${tries} ${tries === 1 ? 'try' : 'tries'})`);
      }
      // Withdrawn by a drain: not run, not recorded. Gone otherwise (a Redis that lost its data): added again; the id keeps it one job.
      if (current === 'unknown' && withdrawn.has(jobId)) throw new AttemptWithdrawn(withdrawReason);
      if (current === 'unknown' && !draining) await add();
      await waiters.waitFor(jobId, env.signal);
    }
  };

  const caps = options.models?.runLimits;
  const pool = caps?.maxCostUsd !== undefined || caps?.maxTokens !== undefined ? RedisPoolStore.open(options.address, options.runId) : undefined;

  return {
    runner,
    ...(pool ? { runPoolStore: pool } : {}),
    drain: async (reason) => {
      if (reason !== undefined && !draining) withdrawReason = reason;
      draining = true;
      const s = await session;
      for (const jobId of inFlight) {
        const job = await s.queue.getJob(jobId);
        const state = job ? await job.getState() : 'unknown';
        if (!job || !(state === 'waiting' || state === 'delayed' || state === 'prioritized')) continue;
        // A worker may take it meanwhile: then removing fails (it is locked) and it runs to the end.
        const removed = await job.remove().then(
          () => true,
          () => false,
        );
        if (removed) {
          withdrawn.add(jobId);
          wake(jobId);
        }
      }
    },
    close: async (completed) => {
      closing = true;
      clearInterval(poll);
      unwatch();
      const s = await session.catch(() => undefined);
      if (s) {
        if (completed) {
          await s.queue.obliterate({ force: true }).catch(() => undefined);
          await redis.del(takenKey(s.runId));
          await endRun(redis, s.runId);
          await pool?.remove();
        }
        await s.events.close();
        await s.queue.close();
      }
      await pool?.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** The record of an attempt the workers could not run: the harness's failure, never the agent's. */
function harnessFailure(plan: AttemptPlan, sandbox: string, startedAt: Date, message: string): AttemptResult {
  const finishedAt = new Date();
  const { verdict, cause, message: judged } = judge({ kind: 'harness_fault', phase: 'prepare', message });
  return {
    ...plan,
    schemaVersion: ATTEMPT_SCHEMA_VERSION,
    verdict,
    cause,
    message: judged,
    sandbox,
    checks: [],
    timings: { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: finishedAt.getTime() - startedAt.getTime() },
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    harnessError: { phase: 'prepare', message },
  };
}

function usedProfiles(agents: readonly string[], profiles: ReadonlyMap<string, AgentProfile>): AgentProfile[] {
  return [...new Set(agents.map((a) => a.split(':')[0] as string))].flatMap((name) => profiles.get(name) ?? []);
}

/** Model options as a worker can use them: no environment, no local pricing file, the cassette directory relative to the shipped tree. */
function modelsForWorkers(models: ModelRunOptions, base: string): Omit<ModelRunOptions, 'env'> {
  // A pricing file is a path on this machine: workers price with the bundled table (docs/distributed.md).
  const { env: _env, pricingFile: _pricing, ...rest } = models;
  if (rest.cassetteDir === undefined) return rest;
  return { ...rest, cassetteDir: relative(base, resolve(rest.cassetteDir)).split(sep).join('/') };
}
