import { mkdir, rm } from 'node:fs/promises';
import { removeTree } from '../../infra/workspace/index.js';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { DelayedError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Agent, AgentPrepared } from '../../domain/agents/index.js';
import { resolveRunAgent } from '../../domain/redteam/index.js';
import { runAttempt } from '../../engine/index.js';
import { startRunModels, type RunModels } from '../../engine/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { attemptDir as attemptDirOf, attemptsDir, runsDir } from '../../domain/run-dir/index.js';
import { uploadAttemptDir } from './artifacts.js';
import { InputCache } from './inputs.js';
import { checkJobData, type AttemptJobData, type AttemptJobResult } from './job.js';
import { checkHealth, type Health } from './health.js';
import { endedKey, PREFIX, queueName, RUNS_KEY } from './keys.js';
import { watchOutages } from './outage.js';
import { refusalOf } from './registration.js';
import { RedisPoolStore } from './redis-pool.js';
import { RunPool } from '../../infra/gateway/index.js';
import { safePath } from './tree.js';
import { bullConnection, redisOptions, type QueueAddress } from './url.js';

export interface WorkerOptions {
  address: QueueAddress;
  /** Attempts this process runs at once, over all runs. */
  concurrency: number;
  sandbox: SandboxKind;
  /** The worker's own state directory: shipped inputs, attempt scratch space, caches. */
  stateDir: string;
  /** How long a job's lock lasts without renewal: a killed worker's job goes to another worker after about this long. */
  lockMs?: number;
  /** One line per thing the worker does. */
  log: (line: string) => void;
  /** How often an unhealthy worker checks itself again; default 5 s. */
  recheckMs?: number;
}

export interface WorkerHandle {
  /** Stops taking jobs; running attempts finish and are delivered. `force` aborts them instead (they run again elsewhere). */
  stop(force?: boolean): Promise<void>;
  /** Settles when the worker has stopped. */
  stopped: Promise<void>;
}

/** How often the worker looks for runs that started or ended. */
const DISCOVER_MS = 1_000;
/**
 * How long a run may be missing from the run set before a worker retires it without the
 * coordinator's word that it ended: a Redis that lost its data loses the set too, and the
 * coordinator registers its run again within seconds of noticing.
 */
const RETIRE_ABSENT_MS = 60_000;
/** How long a job a healthy worker failed with a harness error waits, so that another worker may take it first. */
const ELSEWHERE_DELAY_MS = 2_000;

/**
 * A worker process: serves the queue of every run registered on the Redis server, running each
 * job's attempt with the same engine code as a local run (runAttempt), in its own sandbox and
 * state directory, on a task set fetched from the content-addressed store and verified. A harness
 * error (the sandbox missing, inputs that would not load) fails the try, so BullMQ retries it with
 * backoff, possibly on another worker; the last try delivers its record as it is.
 */
export async function startWorker(options: WorkerOptions): Promise<WorkerHandle> {
  const connection = bullConnection(options.address);
  const redis = new Redis(redisOptions(options.address));
  redis.on('error', () => undefined);
  const stateDir = resolve(options.stateDir);
  const workDir = join(stateDir, 'worker');
  const inputs = new InputCache(redis, join(workDir, 'inputs'));
  const me = `${hostname()}:${process.pid}`;
  const workers = new Map<string, Worker<AttemptJobData, AttemptJobResult>>();
  const resources = new RunResources(options, stateDir);
  const kill = new AbortController();
  const slots = new Slots(options.concurrency);
  let stopping = false;
  /** Runs refused (another Crucible version), said once each. */
  const refused = new Set<string>();
  const absentSince = new Map<string, number>();

  const health = new WorkerHealth(
    options,
    () => workers.values(),
    () => stopping,
  );

  const jobs: JobContext = { options, inputs, resources, health, kill, workDir, stateDir, me, redis };
  const process1 = async (job: Job<AttemptJobData, AttemptJobResult>, token?: string): Promise<AttemptJobResult> => {
    const release = await slots.acquire();
    try {
      // Taken just before the worker stepped aside, or while it waited for a slot: someone else runs it.
      if (health.unhealthy) return await sendBack(job, token, 0);
      return await runJob(jobs, job, token);
    } finally {
      release();
    }
  };

  const serve = (runId: string): void => {
    const worker = new Worker<AttemptJobData, AttemptJobResult>(queueName(runId), process1, {
      connection,
      prefix: PREFIX,
      concurrency: options.concurrency,
      lockDuration: options.lockMs ?? 30_000,
      stalledInterval: options.lockMs ?? 30_000,
      // A job whose worker died twice is given up on (recorded as a harness error), not retried forever.
      maxStalledCount: 2,
      drainDelay: 1,
    });
    worker.on('error', (error: Error) => {
      // A job the queue no longer knows (Redis lost its data meanwhile): its coordinator re-added it, and it runs again.
      if (/^Missing (lock|key) for job /.test(error.message)) options.log(`the queue refused a result (${error.message}); the job runs again`);
    });
    if (health.unhealthy) void worker.pause(true).catch(() => undefined);
    worker.on('failed', (job, error) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) options.log(`gave up on ${job.id}: ${error.message}`);
    });
    workers.set(runId, worker);
    options.log(`serving run ${runId}`);
  };

  const retire = async (runId: string): Promise<void> => {
    const worker = workers.get(runId);
    workers.delete(runId);
    await worker?.close();
    await resources.retire(runId);
    await rm(join(runsDir(workDir), runId), { recursive: true, force: true });
    options.log(`run ${runId} is done`);
  };

  const discover = async (): Promise<void> => {
    if (stopping) return;
    const runs = new Set(await redis.smembers(RUNS_KEY));
    if (stopping) return;
    for (const runId of runs) {
      absentSince.delete(runId);
      if (workers.has(runId) || refused.has(runId) || !/^[\w.-]{1,200}$/.test(runId) || /^\.+$/.test(runId)) continue;
      const refusal = await refusalOf(redis, runId);
      if (refusal === undefined) serve(runId);
      else {
        refused.add(runId);
        options.log(refusal);
      }
    }
    for (const runId of refused) if (!runs.has(runId)) refused.delete(runId);
    const now = Date.now();
    for (const runId of [...workers.keys()]) {
      if (runs.has(runId)) continue;
      // Ended by its coordinator, or gone for long: not a Redis that lost its data and will see the run registered again.
      const since = absentSince.get(runId) ?? now;
      absentSince.set(runId, since);
      if ((await redis.exists(endedKey(runId))) === 1 || now - since >= RETIRE_ABSENT_MS) {
        absentSince.delete(runId);
        await retire(runId);
      }
    }
  };

  let discovering = false;
  const timer = setInterval(() => {
    if (discovering) return;
    discovering = true;
    discover()
      .catch(() => undefined)
      .finally(() => {
        discovering = false;
      });
  }, DISCOVER_MS);
  await redis.ping();
  const unwatch = watchOutages(redis, `worker ${me}`, options.address.url, options.log);
  const start = await checkHealth(options.sandbox);
  if (!start.ok) health.stepAside(start);
  await discover();
  options.log(`worker ${me}: taking jobs from ${options.address.url} (concurrency ${options.concurrency}, sandbox ${options.sandbox}, state ${stateDir})`);

  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let closing: Promise<void> | undefined;
  return {
    stopped,
    stop: async (force = false) => {
      stopping = true;
      clearInterval(timer);
      health.stop();
      unwatch();
      if (force) kill.abort();
      closing ??= (async () => {
        await Promise.all([...workers.values()].map((w) => w.close()));
        await resources.closeAll();
        await redis.quit().catch(() => redis.disconnect());
        resolveStopped();
      })();
      if (force) await Promise.all([...workers.values()].map((w) => w.close(true)));
      await closing;
    },
  };
}

/** What running one job needs of its worker. */
interface JobContext {
  options: WorkerOptions;
  inputs: InputCache;
  resources: RunResources;
  health: WorkerHealth;
  kill: AbortController;
  workDir: string;
  stateDir: string;
  me: string;
  redis: Redis;
}

/**
 * One job's attempt, run as a local run runs it. A harness error on a broken machine sends the job
 * back untried (and the worker steps aside); on a healthy one it goes to another worker first, then
 * spends a try; a provider error spends a try; the last try delivers the record as it is.
 */
async function runJob(ctx: JobContext, job: Job<AttemptJobData, AttemptJobResult>, token: string | undefined): Promise<AttemptJobResult> {
  const { options, kill, me } = ctx;
  const data = checkJobData(job.data);
  const { plan } = data;
  const tries = job.opts.attempts ?? 1;
  const tryNo = job.attemptsMade + 1;
  options.log(`started ${plan.attemptId} (task ${plan.taskId}, agent ${plan.agent}, run ${plan.runId}, try ${tryNo}/${tries})`);
  const input = await ctx.inputs.load(data.inputs);
  const task = input.tasks.find((t) => t.id === plan.taskId);
  if (task === undefined) throw new Error(`task ${plan.taskId} is not in the shipped task set`);
  const profiles = new Map((data.profiles ?? []).map((p) => [p.name, p]));
  const agent = resolveRunAgent(plan.agent, profiles);
  const runModels = await ctx.resources.modelsOf(data, profiles, input.file);
  const agentPrepared = agent.prepare ? await ctx.resources.preparedOf(plan.runId, plan.agent, agent) : undefined;
  const runDir = join(runsDir(ctx.workDir), plan.runId);
  const attemptDir = attemptDirOf(runDir, plan.attemptId);
  await mkdir(attemptsDir(runDir), { recursive: true });
  try {
    const result = await runAttempt(plan, task, agent, {
      runDir,
      stateDir: ctx.stateDir,
      sandbox: options.sandbox,
      ...data.settings,
      ...(data.baseline ? { taskBaselines: new Map([[task.id, data.baseline]]) } : {}),
      signal: kill.signal,
      ...(runModels ? { models: runModels } : {}),
      ...(agentPrepared ? { prepared: new Map([[plan.agent, agentPrepared]]) } : {}),
    });
    if (kill.signal.aborted) throw new Error('the worker was stopped mid-attempt');
    if (result.cause === 'harness_error') {
      // The machine first: a broken sandbox is this worker's fault, not the attempt's.
      const needsDocker = task.environment !== undefined;
      const health = await checkHealth(options.sandbox, needsDocker);
      if (!health.ok) {
        ctx.health.stepAside(health, needsDocker);
        options.log(`harness error on ${plan.attemptId} (${result.message}); back to the queue for a healthy worker, no try spent`);
        return await sendBack(job, token, 0);
      }
      // A healthy machine's harness error gets another worker before it counts.
      const by = data.harnessBy ?? [];
      if (!by.includes(me)) {
        await job.updateData({ ...data, harnessBy: [...by, me] });
        options.log(`harness error on ${plan.attemptId} (${result.message}); back to the queue for another worker, no try spent`);
        return await sendBack(job, token, ELSEWHERE_DELAY_MS);
      }
      if (tryNo < tries) {
        options.log(`harness error on ${plan.attemptId} (${result.message}); the queue retries it`);
        throw new Error(result.message ?? 'harness error');
      }
    }
    if (result.cause === 'provider_error' && tryNo < tries) {
      options.log(`provider error on ${plan.attemptId} (${result.message}); the queue retries it`);
      throw new Error(result.message ?? 'provider error');
    }
    const files = await uploadAttemptDir(ctx.redis, attemptDir);
    options.log(`finished ${plan.attemptId}: ${result.verdict}${result.cause ? ` (${result.cause})` : ''}`);
    return { version: 1, files, worker: me };
  } finally {
    await removeTree(attemptDir);
  }
}

/** The job goes back to the queue without spending one of its tries (BullMQ's moveToDelayed skips the attempt count). */
async function sendBack(job: Job<AttemptJobData, AttemptJobResult>, token: string | undefined, delayMs: number): Promise<never> {
  await job.moveToDelayed(Date.now() + delayMs, token);
  throw new DelayedError();
}

/**
 * While the machine is broken (its sandbox stopped working, Docker went away) the worker takes no
 * jobs, says why and the fix once, and checks itself again every few seconds.
 */
class WorkerHealth {
  private state: { since: number; timer: NodeJS.Timeout; needsDocker: boolean } | undefined;
  private rechecking = false;

  constructor(
    private readonly options: WorkerOptions,
    private readonly workers: () => Iterable<Worker<AttemptJobData, AttemptJobResult>>,
    private readonly stopping: () => boolean,
  ) {}

  get unhealthy(): boolean {
    return this.state !== undefined;
  }

  stepAside(health: Exclude<Health, { ok: true }>, needsDocker = false): void {
    if (this.state !== undefined || this.stopping()) return;
    this.options.log(`unhealthy: ${health.reason}; taking no jobs until it works again (fix: ${health.fix})`);
    for (const w of this.workers()) void w.pause(true).catch(() => undefined);
    const timer = setInterval(() => void this.recheck(), this.options.recheckMs ?? 5_000);
    this.state = { since: Date.now(), timer, needsDocker };
  }

  stop(): void {
    if (this.state) clearInterval(this.state.timer);
  }

  private async recheck(): Promise<void> {
    if (this.rechecking || this.state === undefined) return;
    this.rechecking = true;
    try {
      // Checked as it failed: a bwrap worker that lost Docker for an `environment:` task waits for Docker.
      const health = await checkHealth(this.options.sandbox, this.state.needsDocker);
      if (!health.ok || this.state === undefined || this.stopping()) return;
      clearInterval(this.state.timer);
      const seconds = ((Date.now() - this.state.since) / 1000).toFixed(1);
      this.state = undefined;
      this.options.log(`healthy again after ${seconds} s: taking jobs`);
      for (const w of this.workers()) w.resume();
    } finally {
      this.rechecking = false;
    }
  }
}

/** Per run on this worker: its model gateway (with this worker's keys), its cap pool in Redis, its prepared agents. */
class RunResources {
  private readonly models = new Map<string, Promise<RunModels | undefined>>();
  private readonly pools = new Map<string, RedisPoolStore>();
  private readonly prepared = new Map<string, Promise<AgentPrepared>>();

  constructor(
    private readonly options: WorkerOptions,
    private readonly stateDir: string,
  ) {}

  /** The run's model agents get one gateway on this worker, with this worker's keys. */
  modelsOf(
    data: AttemptJobData,
    profiles: ReadonlyMap<string, NonNullable<AttemptJobData['profiles']>[number]>,
    taskSetFile: string,
  ): Promise<RunModels | undefined> {
    const runId = data.plan.runId;
    let pending = this.models.get(runId);
    if (pending === undefined) {
      const agents: Agent[] = data.agents.map((spec) => resolveRunAgent(spec, profiles));
      const root = resolve(taskSetFile, ...data.inputs.taskSet.split('/').map(() => '..'));
      const m = data.models;
      const runOptions = m ? { ...m, ...(m.cassetteDir !== undefined ? { cassetteDir: safePath(root, m.cassetteDir) } : {}) } : undefined;
      // The run's caps hold over every worker's requests: one pool in Redis for the run.
      const caps = m?.runLimits;
      const pool = caps?.maxCostUsd !== undefined || caps?.maxTokens !== undefined ? RedisPoolStore.open(this.options.address, runId) : undefined;
      if (pool) this.pools.set(runId, pool);
      pending = startRunModels(agents, runOptions, pool && caps ? new RunPool(caps, pool) : undefined);
      this.models.set(runId, pending);
      pending.catch(() => {
        this.models.delete(runId);
        this.pools.delete(runId);
        void pool?.close();
      });
    }
    return pending;
  }

  preparedOf(runId: string, spec: string, agent: Agent): Promise<AgentPrepared> {
    const key = `${runId}\0${spec}`;
    let pending = this.prepared.get(key);
    if (pending === undefined) {
      pending = (agent.prepare as NonNullable<Agent['prepare']>)({ stateDir: this.stateDir, sandbox: this.options.sandbox });
      this.prepared.set(key, pending);
      pending.catch(() => this.prepared.delete(key));
    }
    return pending;
  }

  async retire(runId: string): Promise<void> {
    const m = this.models.get(runId);
    this.models.delete(runId);
    await (await m?.catch(() => undefined))?.close();
    await this.pools.get(runId)?.close();
    this.pools.delete(runId);
  }

  async closeAll(): Promise<void> {
    for (const m of this.models.values()) await (await m.catch(() => undefined))?.close();
    for (const pool of this.pools.values()) await pool.close();
  }
}

/** A counting semaphore: a worker serving several runs still runs at most `n` attempts at once. */
class Slots {
  private free: number;
  private readonly queue: Array<() => void> = [];
  constructor(n: number) {
    this.free = n;
  }
  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.queue.push(r));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next();
      else this.free++;
    };
  }
}
