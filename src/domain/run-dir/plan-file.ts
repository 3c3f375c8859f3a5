import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { AgentProfile } from '../agents/index.js';
import { InputError } from '../../core/errors.js';
import type { AdaptiveTarget } from '../stats/index.js';
import type { TaskSelection } from '../tasks/index.js';
import type { AttemptPlan, PlannedTask } from '../../core/types/index.js';
import { writeJsonAtomic } from './atomic.js';
import { RUN_FILES, runFile } from './names.js';

export const PLAN_SCHEMA_VERSION = 2;

export type { PlannedTask };

/**
 * `--adaptive`: what the run is for and the most it may spend. Recorded in plan.json for resume.
 * The budget is attempts, dollars (the run's `--max-cost-total`, metered by the gateway), or both.
 */
export interface AdaptiveRunOptions {
  target: AdaptiveTarget;
  /** Attempts the run may spend in all, finished ones from before a resume included; absent: every planned attempt. */
  maxAttempts?: number;
  /**
   * Pair sets the design asks for per look: the run's `--concurrency`, or a local run's default
   * when none was given (also with `--queue`, whose default concurrency is only how many jobs wait
   * in the queue). Recorded so a resume, local or queued, with any `-j`, looks where the run did.
   * Absent in plan files written before it: the resume's concurrency.
   */
  batch?: number;
}

/** One resume of a run, kept in plan.json so a reader knows the run was not done in one go. */
export interface ResumeRecord {
  at: string;
  forced: boolean;
  previousConfigHash: string;
  reused: number;
  /** Recorded attempts that were dropped because the plan no longer has them (forced resumes). */
  superseded: number;
}

/** The predictions a `crucible grade` run grades (docs/runs.md#grading-patches-made-elsewhere-crucible-grade). */
export interface GradePredictionsRef {
  /** Absolute path of the predictions file or directory. */
  path: string;
  /** `--model-name`, when given. */
  modelName?: string;
  /** sha256 of the predictions as read (task, model, patch): part of the config hash. */
  sha256: string;
}

/** `plan.json`: everything needed to run the rest of the run again, written before anything runs. */
export interface RunPlanFile {
  schemaVersion: typeof PLAN_SCHEMA_VERSION;
  runId: string;
  /** `validate` for a `crucible validate` run; absent for an ordinary run. */
  kind?: 'validate';
  createdAt: string;
  /** The task-set path as the user gave it (for display). */
  taskSet: string;
  /** The task-set path resolved when the run started (for resume). */
  taskSetPath: string;
  agents: string[];
  /** The agent profiles the agents named (external agents), as the run read them; resume uses these. */
  profiles?: AgentProfile[];
  trials: number;
  /** The attempt settings the run used (sandbox kind, grading options). */
  settings: Record<string, unknown>;
  /** The model agents' options (gateway mode, cassettes, limits), without the environment; absent without model agents. */
  models?: Record<string, unknown>;
  /** The filters as given; the selected task ids are in `tasks`. */
  selection: TaskSelection;
  /** A suite run's task-set name per task id (docs/suites.md); absent for a run of one task set. */
  taskSets?: Record<string, string>;
  /** Fewer attempts than `trials` for some agents (a suite's per-agent `runs:`, validate's one `nop`). */
  agentTrials?: Record<string, number>;
  /** A distributed run's queue URL (no credentials); `resume` reattaches to it. Absent for a local run. */
  queue?: string;
  /** `--adaptive`: the target and budget, so a resume goes on adaptively (engine/adaptive-run.ts). */
  adaptive?: AdaptiveRunOptions;
  /** A `crucible grade` run: where its predictions were read and their digest, so `resume` rebuilds its agents. */
  predictions?: GradePredictionsRef;
  tasks: PlannedTask[];
  configHash: string;
  resumes: ResumeRecord[];
  attempts: AttemptPlan[];
}

/** Whether `runDir` is a run (a directory with a plan), as `resume` and error messages ask. */
export function hasPlan(runDir: string): boolean {
  return existsSync(runFile(runDir, 'plan'));
}

/** plan.json, checked to be one this version can resume; a one-line error otherwise. */
export async function readPlanFile(runDir: string, runId: string): Promise<RunPlanFile> {
  const file = runFile(runDir, 'plan');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    const why = existsSync(file) ? 'is not valid JSON' : 'is missing';
    throw new InputError(`run ${runId}: ${file} ${why}, so the run cannot be resumed (fix: start a new run)`);
  }
  const plan = parsed as Partial<RunPlanFile>;
  if (plan.schemaVersion !== PLAN_SCHEMA_VERSION || !Array.isArray(plan.attempts) || !Array.isArray(plan.tasks)) {
    throw new InputError(
      `run ${runId}: plan.json was written by another version of Crucible (schema ${String(plan.schemaVersion)}, this one reads ${PLAN_SCHEMA_VERSION}) (fix: start a new run)`,
    );
  }
  return plan as RunPlanFile;
}

/**
 * plan.json as far as it can be read, for views of a run that may be of another version or half
 * written: a missing or unreadable plan is no answer, not an error.
 */
export function peekPlanFile(runDir: string): Partial<RunPlanFile> | undefined {
  return peekJson(runFile(runDir, 'plan')) as Partial<RunPlanFile> | undefined;
}

export async function writePlanFile(runDir: string, plan: RunPlanFile): Promise<void> {
  await writeJsonAtomic(runFile(runDir, 'plan'), plan);
}

/**
 * Creates `runDir` with its `attempts/` folder and plan.json in one step: staged under a hidden
 * name and renamed into place, so the directory is never seen without a plan.
 */
export async function createRunDir(runDir: string, plan: RunPlanFile): Promise<void> {
  const staging = join(dirname(runDir), `.${basename(runDir)}.${process.pid}.staging`);
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(join(staging, RUN_FILES.attempts), { recursive: true });
    await writePlanFile(staging, plan);
    await rename(staging, runDir);
  } catch (error) {
    // A full or read-only disk: leave nothing half-made behind.
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** A file the engine wrote, parsed; undefined when it is missing or half written. */
export function peekJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}
