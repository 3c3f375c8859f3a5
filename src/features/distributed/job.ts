import type { AgentProfile } from '../../domain/agents/index.js';
import type { TaskBaselineRuns } from '../../engine/index.js';
import type { ModelRunOptions } from '../../engine/index.js';
import type { AttemptPlan } from '../../core/types/index.js';
import type { ArtifactRef } from './artifacts.js';
import type { InputsRef } from './inputs.js';

/** The job format this Crucible writes and reads (AttemptJobData.version); coordinator and workers must agree. */
export const JOB_FORMAT = 1;

/** The BullMQ job name of an attempt. */
export const ATTEMPT_JOB = 'attempt';

/**
 * One attempt as a job. Data only: no environment values, no keys (a worker's model agents use
 * the worker's own gateway and environment). The job id is the attempt id, so adding it again
 * after a crash finds the job already there instead of running the attempt twice.
 */
export interface AttemptJobData {
  version: 1;
  plan: AttemptPlan;
  inputs: InputsRef;
  /** Every agent spec of the run (a worker starts one gateway for the run's model agents). */
  agents: string[];
  /** The external agent profiles the run's agents name, as the coordinator read them. */
  profiles?: AgentProfile[];
  /** The grading settings a worker applies; the sandbox is the worker's own (`--sandbox`). */
  settings: { baselineTests?: boolean; prepareCache?: boolean };
  /** Workers (`host:pid`) whose try ended in a harness error on a healthy machine: the next such error on one of them counts as a try. */
  harnessBy?: string[];
  /** The task's baseline test runs from the coordinator's preflight, as a local run's attempts get them. */
  baseline?: TaskBaselineRuns;
  /** Model options without the environment; `cassetteDir` relative to the shipped tree when it ships with it. */
  models?: Omit<ModelRunOptions, 'env'>;
}

/** What a worker returns: every file of the attempt directory, by content hash. */
export interface AttemptJobResult {
  version: 1;
  files: ArtifactRef[];
  /** `host:pid` of the worker that ran it. */
  worker: string;
}

/** Checks a job's data before a worker acts on it; throws naming what is wrong. */
export function checkJobData(data: unknown): AttemptJobData {
  const d = data as Partial<AttemptJobData> | undefined;
  if (d?.version !== 1)
    throw new Error(`job data of version ${String(d?.version)}; this worker reads version 1 (fix: run the same Crucible version on coordinator and workers)`);
  const plan = d.plan as Partial<AttemptPlan> | undefined;
  for (const key of ['attemptId', 'runId', 'taskId', 'agent'] as const) {
    if (typeof plan?.[key] !== 'string') throw new Error(`job data has no plan.${key}`);
  }
  // Both become directory names on the worker: a name from Redis never reaches outside its directory.
  for (const key of ['attemptId', 'runId'] as const) {
    const name = plan?.[key] as string;
    if (!/^[\w.-]{1,200}$/.test(name) || /^\.+$/.test(name)) throw new Error(`job data has an unsafe plan.${key}: ${JSON.stringify(name).slice(0, 80)}`);
  }
  if (typeof d.inputs?.manifest !== 'string' || typeof d.inputs.taskSet !== 'string') throw new Error('job data has no inputs');
  if (!Array.isArray(d.agents)) throw new Error('job data has no agents');
  return d as AttemptJobData;
}
