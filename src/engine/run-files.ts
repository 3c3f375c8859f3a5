import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { AgentProfile } from '../agents/external/index.js';
import { InputError, OptionError } from '../errors.js';
import type { AttemptPlan } from '../types/index.js';
import type { PlannedTask } from './plan.js';
import type { TaskSelection } from '../tasks/index.js';
import type { AdaptiveRunOptions } from './adaptive-run.js';

export const PLAN_SCHEMA_VERSION = 2;

/** One resume of a run, kept in plan.json so a reader knows the run was not done in one go. */
export interface ResumeRecord {
  at: string;
  forced: boolean;
  previousConfigHash: string;
  reused: number;
  /** Recorded attempts that were dropped because the plan no longer has them (forced resumes). */
  superseded: number;
}

/** `plan.json`: everything needed to run the rest of the run again, written before anything runs. */
/** The predictions a `crucible grade` run grades (docs/runs.md#grading-patches-made-elsewhere-crucible-grade). */
export interface GradePredictionsRef {
  /** Absolute path of the predictions file or directory. */
  path: string;
  /** `--model-name`, when given. */
  modelName?: string;
  /** sha256 of the predictions as read (task, model, patch): part of the config hash. */
  sha256: string;
}

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

export function runsDir(stateDir: string): string {
  return join(resolve(stateDir), 'runs');
}

/** Writes to a temporary file and renames it over the target: readers see the old file or the new one. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, text);
  } catch (error) {
    // A write that fails after the open (a disk that fills mid-file) carries no path: name the file.
    await rm(tmp, { force: true }).catch(() => undefined);
    if (error instanceof Error && (error as NodeJS.ErrnoException).path === undefined) Object.assign(error, { path: file });
    throw error;
  }
  await rename(tmp, file);
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

export async function readPlanFile(runDir: string, runId: string): Promise<RunPlanFile> {
  const file = join(runDir, 'plan.json');
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
 * Finds a run directory by id or unique id prefix, the way `git` takes short hashes. Looks at the
 * run directories themselves, so a run can be resumed even when the history file is missing.
 */
export async function findRunDir(stateDir: string, prefix: string): Promise<{ runId: string; runDir: string }> {
  const dir = runsDir(stateDir);
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
  } catch {
    throw new OptionError([{ field: 'runId', value: prefix }], `no runs in ${dir}`, 'pass {stateDir} with the state directory the run used');
  }
  if (names.includes(prefix)) return { runId: prefix, runDir: join(dir, prefix) };
  const matches = names.filter((n) => n.startsWith(prefix)).sort();
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return { runId: only, runDir: join(dir, only) };
  if (matches.length === 0) {
    const recent = names.sort().slice(-3).reverse();
    throw new InputError(
      `run ${prefix}: no such run in ${dir} (fix: use a run id${recent.length > 0 ? `, e.g. ${recent.join(', ')}` : ''}; \`crucible history --runs\` lists them)`,
    );
  }
  throw new InputError(
    `run ${prefix}: matches ${matches.length} runs (${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}) (fix: give more of the id)`,
  );
}

/**
 * Creates `runDir` with its `attempts/` folder and plan.json in one step: staged under a hidden
 * name and renamed into place, so the directory is never seen without a plan.
 */
export async function createRunDir(runDir: string, plan: RunPlanFile): Promise<void> {
  const staging = join(dirname(runDir), `.${basename(runDir)}.${process.pid}.staging`);
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(join(staging, 'attempts'), { recursive: true });
    await writeJsonAtomic(join(staging, 'plan.json'), plan);
    await rename(staging, runDir);
  } catch (error) {
    // A full or read-only disk: leave nothing half-made behind.
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** The JUnit copies an attempt directory holds: baseline run, the verify run, held-out tests. */
export const ATTEMPT_JUNIT_FILES = {
  baseline: 'baseline.junit.xml',
  baselineHeldOut: 'baseline-held-out.junit.xml',
  tests: 'tests.junit.xml',
  heldOut: 'held-out.junit.xml',
} as const;
