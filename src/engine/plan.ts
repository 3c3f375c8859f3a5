import { createHash, randomBytes } from 'node:crypto';
import { dirname, isAbsolute, relative } from 'node:path';
import { OptionError } from '../core/errors.js';
import type { AttemptPlan, PlannedTask, Task } from '../core/types/index.js';

export type { PlannedTask };

/**
 * Settings that change what an attempt means (sandbox kind, grading options). Every key is part of
 * the config hash unless listed in NON_DEFINING_SETTINGS, so a setting added later is safe by
 * default: a resumed run with a different value is refused instead of silently mixed.
 */
export type PlanSettings = Readonly<Record<string, unknown>>;

/** Settings that only change what is kept or shown, not what an attempt measures. */
export const NON_DEFINING_SETTINGS: ReadonlySet<string> = new Set(['keepWorkspace', 'prepareCache']);

/**
 * Settings about the agents and the plan's shape, not the task: the model agents' access (base
 * URLs, turn and token limits, timeouts), external agents' profiles, per-agent trial counts. They
 * are in the config hash and the attempt ids (resume checks them) but not in a task's identity.
 */
export const AGENT_SETTINGS: ReadonlySet<string> = new Set(['models', 'profiles', 'agentTrials', 'predictions']);

export interface Plan {
  configHash: string;
  tasks: PlannedTask[];
  attempts: AttemptPlan[];
}

/** Model-agent options that change what an attempt measures; the gateway mode, cassettes and prices do not. */
const DEFINING_MODEL_OPTIONS = ['baseUrl', 'baseUrls', 'limits', 'agentTimeoutMs'] as const;

/**
 * The settings a plan is hashed with: the attempt settings plus, for runs with model agents, the
 * model options that define an attempt (a resume with other turn or token limits is another run).
 */
export function hashedSettings(settings: PlanSettings, models: Readonly<Record<string, unknown>> | undefined): PlanSettings {
  if (models === undefined) return settings;
  const defining = Object.fromEntries(DEFINING_MODEL_OPTIONS.filter((k) => models[k] !== undefined).map((k) => [k, models[k]]));
  return { ...settings, models: defining };
}

/** Only the settings that define an attempt, in a canonical form. */
export function definingSettings(settings: PlanSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(settings).sort()) {
    if (!NON_DEFINING_SETTINGS.has(key) && settings[key] !== undefined) out[key] = settings[key];
  }
  return out;
}

/**
 * Hash of everything that defines one task's attempts: the task's content and the settings, not
 * where the task set lives. Paths under the task set's directory are hashed relative to it, so a
 * moved checkout resumes. The contents of a local repo directory are not hashed (a large repo would
 * cost a full read per run): bump the task's `version` when you change its repo.
 */
export function taskHash(task: Task, settings: PlanSettings): string {
  return sha256(canonicalJson({ task: taskContent(task), settings: definingSettings(settings) })).slice(0, 16);
}

/**
 * What a task is, for comparisons between runs: its content (repo, instruction, setup, tests,
 * policy, limits, held-out tests, oracle) and the settings that change how it is graded (sandbox,
 * baseline tests), without AGENT_SETTINGS. A recorded run and its replay, or two runs reaching
 * the same model through different base URLs, have the same task identities; the record/replay
 * mode is in neither (a replay reproduces its recording).
 */
export function taskIdentity(task: Task, settings: PlanSettings): string {
  const graded = Object.fromEntries(Object.entries(settings).filter(([k]) => !AGENT_SETTINGS.has(k)));
  return sha256(canonicalJson({ task: taskContent(task), settings: definingSettings(graded) })).slice(0, 16);
}

/** The task's fields with paths relative to its task set, so a moved checkout hashes the same. */
function taskContent(task: Task): Record<string, unknown> {
  const base = dirname(task.sourceFile);
  const rel = (p: string): string => (isAbsolute(p) ? relative(base, p) || '.' : p);
  const { sourceFile: _sourceFile, ...rest } = task;
  return {
    ...rest,
    repo: task.repo.kind === 'local' ? { ...task.repo, path: rel(task.repo.path) } : task.repo,
    heldOut: task.heldOut ? { ...task.heldOut, path: rel(task.heldOut.path) } : undefined,
    // The environment as configured; a rebuilt image under the same reference shows in each attempt's provenance instead.
    environment: task.environment
      ? {
          ...task.environment,
          ...(task.environment.dockerfile ? { dockerfile: rel(task.environment.dockerfile) } : {}),
          ...(task.environment.context ? { context: rel(task.environment.context) } : {}),
        }
      : undefined,
  };
}

/** Hash of the whole plan's definition: tasks (in order), agents, trials and settings. */
export function configHash(tasks: readonly PlannedTask[], agents: readonly string[], trials: number, settings: PlanSettings): string {
  return sha256(canonicalJson({ tasks, agents, trials, settings: definingSettings(settings) })).slice(0, 16);
}

/** `20261130-091244-3fa2`: sortable by start time, unique enough for one machine. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * A readable, filesystem-safe id that is the same for the same run, task version, agent, trial and
 * task config, so a resumed run finds the attempts it already has, and a task whose content changed
 * gets new ids instead of inheriting stale results. The run id is part of it because the history
 * keys attempts by id across all runs: two runs of the same task must not share one.
 */
export function attemptId(runId: string, task: Pick<Task, 'id' | 'version'>, agent: string, trial: number, hash: string): string {
  const digest = sha256(`${runId}\0${task.id}\0${task.version}\0${agent}\0${trial}\0${hash}`).slice(0, 10);
  return `${slug(task.id)}.${slug(agent)}.${trial}.${digest}`;
}

/**
 * The most attempts one run may plan. Far above any useful evaluation (1,000 tasks × 10 agents ×
 * 10 runs), and it keeps a typo (`--runs 1000000000`) from building a plan that exhausts the heap.
 */
export const MAX_PLANNED_ATTEMPTS = 100_000;

/** Refuses a plan over MAX_PLANNED_ATTEMPTS before building it; names the field, front ends name their flags. */
export function checkPlanSize(tasks: number, agents: number, runs: number): void {
  const total = tasks * agents * runs;
  if (total > MAX_PLANNED_ATTEMPTS) {
    throw new OptionError(
      [],
      `{trials} ${runs} × ${tasks} task(s) × ${agents} agent(s) = ${total.toLocaleString('en-US')} attempts, over the limit of ${MAX_PLANNED_ATTEMPTS.toLocaleString('en-US')} per run`,
      'lower {trials}, or select fewer tasks with {taskIds} or {tags}',
    );
  }
}

/** Tasks × agents × trials, in a fixed order: task, then agent, then trial. */
export function expandPlan(runId: string, tasks: readonly Task[], agents: readonly string[], trials: number, settings: PlanSettings): Plan {
  if (!Number.isInteger(trials) || trials < 1) throw new RangeError(`trials must be a positive integer, got ${trials}`);
  checkPlanSize(tasks.length, agents.length, trials);
  const duplicate = agents.find((a, i) => agents.indexOf(a) !== i);
  if (duplicate !== undefined) throw new RangeError(`agent ${duplicate} is listed twice`);
  const planned = tasks.map((t): PlannedTask => ({ id: t.id, version: t.version, hash: taskHash(t, settings), identity: taskIdentity(t, settings) }));
  const attempts: AttemptPlan[] = [];
  for (const task of planned) {
    for (const agent of agents) {
      for (let trial = 0; trial < trials; trial++) {
        attempts.push({
          attemptId: attemptId(runId, task, agent, trial, task.hash),
          runId,
          taskId: task.id,
          taskVersion: task.version,
          agent,
          trial,
          index: attempts.length,
        });
      }
    }
  }
  // The config hash keeps the form it had before `identity` existed, so runs planned then still resume.
  const hashed = planned.map(({ id, version, hash }) => ({ id, version, hash }));
  return { configHash: configHash(hashed, agents, trials, settings), tasks: planned, attempts };
}

/** JSON with object keys sorted, so equal values always hash equally whatever built them. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
}

function slug(value: string): string {
  return (
    value
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'x'
  );
}

export function sha256(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}
