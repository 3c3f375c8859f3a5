import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../../core/types/index.js';
import { writeFileAtomic, writeJsonAtomic } from '../../domain/run-dir/index.js';
import { quantileSorted } from '../../domain/stats/index.js';
import type { TaskStrength } from './judge.js';
import type { Mutant } from './mutants.js';
import { taskKey } from './plan.js';

export const STRENGTH_FILE_VERSION = 1;

/**
 * `<state>/strength.json`: what `validate --strength` measured per task, which `run`, the reports
 * and `compare` read to put the task set's strength beside each pass rate. A task's entry holds
 * while its content key matches; one validated again replaces it, the others stay.
 */
export interface StrengthFile {
  schemaVersion: typeof STRENGTH_FILE_VERSION;
  tasks: TaskStrength[];
}

export function strengthFilePath(stateDir: string): string {
  return join(stateDir, 'strength.json');
}

/** Where a surviving mutant's patch is kept, relative to the state directory. */
export function survivorPatchPath(taskId: string, m: Pick<Mutant, 'id'>): string {
  return join('strength', taskId.replace(/[^\w.-]+/g, '_'), `${m.id}.patch`);
}

export async function readStrengthFile(stateDir: string): Promise<StrengthFile | undefined> {
  try {
    const data = JSON.parse(await readFile(strengthFilePath(stateDir), 'utf8')) as StrengthFile;
    return data.schemaVersion === STRENGTH_FILE_VERSION && Array.isArray(data.tasks) ? data : undefined;
  } catch {
    return undefined;
  }
}

/** Merges these tasks into the file and saves each surviving mutant's patch beside it. */
export async function writeStrengthFile(stateDir: string, results: readonly TaskStrength[], patches: ReadonlyMap<string, string>): Promise<string> {
  for (const t of results) {
    for (const s of t.survivors) {
      const file = join(stateDir, s.patchFile);
      await mkdir(join(file, '..'), { recursive: true });
      await writeFileAtomic(file, patches.get(s.id) ?? '');
    }
  }
  const before = (await readStrengthFile(stateDir))?.tasks ?? [];
  const replaced = new Set(results.map((t) => t.taskId));
  const file: StrengthFile = { schemaVersion: STRENGTH_FILE_VERSION, tasks: [...before.filter((t) => !replaced.has(t.taskId)), ...results] };
  await mkdir(stateDir, { recursive: true });
  await writeJsonAtomic(strengthFilePath(stateDir), file);
  return strengthFilePath(stateDir);
}

/** A task set's strength in one line's worth: the median over its measured tasks and the weakest ones. */
export interface StrengthSummary {
  /** Tasks with a measured strength. */
  measured: number;
  median?: number;
  /** The weakest tasks, weakest first (at most three). */
  weakest: Array<{ taskId: string; strength: number; survivors: number }>;
  /** The highest flake rate among the tasks, and the tasks whose verdict changed between identical runs. */
  flakeRate: number;
  unstable: string[];
}

export function summarizeTaskSet(tasks: readonly TaskStrength[]): StrengthSummary {
  const measured = tasks.filter((t): t is TaskStrength & { strength: number } => t.strength !== undefined);
  const sorted = measured.map((t) => t.strength).sort((a, b) => a - b);
  const weakest = [...measured]
    .sort((a, b) => a.strength - b.strength || a.taskId.localeCompare(b.taskId))
    .filter((t) => t.strength < 1)
    .slice(0, 3)
    .map((t) => ({ taskId: t.taskId, strength: t.strength, survivors: t.survivors.length }));
  return {
    measured: measured.length,
    ...(sorted.length > 0 ? { median: quantileSorted(sorted, 0.5) } : {}),
    weakest,
    flakeRate: Math.max(0, ...tasks.map((t) => t.flake?.rate ?? 0)),
    unstable: tasks.filter((t) => (t.flake?.verdictChanged.length ?? 0) > 0).map((t) => t.taskId),
  };
}

/** `median 0.82 (6 tasks); weakest: a 0.40, b 0.75` */
export function formatStrengthSummary(s: StrengthSummary): string {
  if (s.median === undefined) return 'not measured (crucible validate --strength)';
  const pct = (x: number): string => `${Math.round(x * 100)}%`;
  const weakest = s.weakest.length > 0 ? `; weakest: ${s.weakest.map((w) => `${w.taskId} ${pct(w.strength)} (${w.survivors} surviving)`).join(', ')}` : '';
  const flake = s.flakeRate > 0 ? `; flake rate up to ${pct(s.flakeRate)}` : '';
  const unstable = s.unstable.length > 0 ? `; verdict changed between identical runs: ${s.unstable.join(', ')}` : '';
  return `median ${pct(s.median)} over ${s.measured} task${s.measured === 1 ? '' : 's'}${weakest}${flake}${unstable}`;
}

/** Below this a task is called weak: more than one near-miss fix in five gets through its tests. */
export const WEAK_STRENGTH = 0.8;

/**
 * What a run shows of strength: the state directory's entries for the run's tasks whose content
 * key still matches (a task changed since `validate --strength` has none), copied into the run
 * directory as `strength.json` so its reports read the numbers the run was graded beside.
 */
export async function snapshotForRun(stateDir: string, tasks: readonly Task[], runDir: string): Promise<StrengthSummary | undefined> {
  const file = await readStrengthFile(stateDir);
  if (!file) return undefined;
  const byId = new Map(file.tasks.map((t) => [t.taskId, t]));
  const kept: TaskStrength[] = [];
  for (const task of tasks) {
    const entry = byId.get(task.id);
    if (entry && entry.taskKey === (await taskKey(task))) kept.push(entry);
  }
  if (kept.length === 0) return undefined;
  await writeJsonAtomic(strengthFilePath(runDir), { schemaVersion: STRENGTH_FILE_VERSION, tasks: kept } satisfies StrengthFile);
  return summarizeTaskSet(kept);
}

/** The strength a run was graded beside (its `strength.json`), for its reports; undefined when it had none. */
export function readRunStrength(runDir: string): StrengthSummary | undefined {
  try {
    const data = JSON.parse(readFileSync(strengthFilePath(runDir), 'utf8')) as StrengthFile;
    return data.schemaVersion === STRENGTH_FILE_VERSION && Array.isArray(data.tasks) ? summarizeTaskSet(data.tasks) : undefined;
  } catch {
    return undefined;
  }
}
