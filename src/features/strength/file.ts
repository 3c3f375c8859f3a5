import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../../core/types/index.js';
import { RUN_FILES, writeFileAtomic, writeJsonAtomic } from '../../domain/run-dir/index.js';
import type { TaskStrength } from './judge.js';
import { summarizeTaskSet, type StrengthSummary } from './summary.js';
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

/** `<dir>/strength.json`: in the state directory (validate's measure) and in a run directory (the run's snapshot). */
export function strengthFilePath(dir: string): string {
  return join(dir, RUN_FILES.strength);
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
  const tasks = readRunStrengthTasks(runDir);
  return tasks ? summarizeTaskSet(tasks) : undefined;
}

/** The per-task entries of a run's `strength.json`; undefined when it has none (or one of another version). */
export function readRunStrengthTasks(runDir: string): TaskStrength[] | undefined {
  try {
    const data = JSON.parse(readFileSync(strengthFilePath(runDir), 'utf8')) as StrengthFile;
    return data.schemaVersion === STRENGTH_FILE_VERSION && Array.isArray(data.tasks) ? data.tasks : undefined;
  } catch {
    return undefined;
  }
}
