import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Agent } from '../../domain/agents/index.js';
import { createPatchAgent } from '../../domain/agents/index.js';
import type { Task } from '../../core/types/index.js';
import { listTree } from '../../infra/workspace/index.js';
import { writeJsonAtomic } from '../../domain/run-dir/index.js';
import { mutantsOf, type Mutant, type MutantSet } from './mutants.js';
import type { MutantOutcome } from './judge.js';

/** Bumped when what a mutant is, or how its outcome is judged, changes: older cache entries are then never read. */
export const STRENGTH_FORMAT = 1;

export interface StrengthOptions {
  maxMutants: number;
  seed: number;
  /** Crucible's state directory: the cache is `<state>/cache/strength/<task key>.json`. */
  stateDir: string;
}

export interface TaskMutants {
  task: Task;
  key: string;
  set: MutantSet;
  /** Outcomes an earlier run of the same task content recorded. */
  cached: Map<string, MutantOutcome>;
  /** The sampled mutants still to grade. */
  pending: Mutant[];
  /** Why the task has no mutants at all. */
  skipped?: string;
}

/**
 * The mutants of a validation: per task its sampled mutants, and for the run one agent per rank
 * (`mutant-1`, `mutant-2`, …) that applies each task's mutant of that rank the way `crucible grade`
 * applies a prediction (createPatchAgent), so every mutant is graded exactly as an attempt is.
 */
export interface StrengthPlan {
  tasks: TaskMutants[];
  agents: string[];
  only: (taskId: string, agent: string) => boolean;
  /** The agent of a mutant rank, undefined for any other name. */
  agent: (spec: string) => Agent | undefined;
  /** The mutant a (task, agent) attempt graded. */
  mutantOf: (taskId: string, agent: string) => Mutant | undefined;
}

const AGENT_PREFIX = 'mutant-';

export async function planStrength(tasks: readonly Task[], options: StrengthOptions): Promise<StrengthPlan> {
  const planned: TaskMutants[] = [];
  for (const task of tasks) {
    const key = await taskKey(task);
    const patch = task.oracle?.patch;
    const skipped = task.oracle?.script !== undefined ? 'the oracle is a script: no patch to mutate' : !patch ? 'no oracle patch' : undefined;
    const set =
      patch && !skipped
        ? mutantsOf(patch, { max: options.maxMutants, seed: options.seed })
        : { mutants: [], candidates: 0, sameAsOracle: 0, unsupportedFiles: [] };
    const cached = await readCache(options.stateDir, key);
    planned.push({ task, key, set, cached, pending: set.mutants.filter((m) => !cached.has(m.id)), ...(skipped ? { skipped } : {}) });
  }
  const ranks = Math.max(0, ...planned.map((t) => t.pending.length));
  const agents = Array.from({ length: ranks }, (_, i) => `${AGENT_PREFIX}${i + 1}`);
  const byTask = new Map(planned.map((t) => [t.task.id, t]));
  const mutantOf = (taskId: string, agent: string): Mutant | undefined => {
    if (!agent.startsWith(AGENT_PREFIX)) return undefined;
    return byTask.get(taskId)?.pending[Number(agent.slice(AGENT_PREFIX.length)) - 1];
  };
  const patchAgents = new Map(
    agents.map((name) => [
      name,
      createPatchAgent(
        name,
        new Map(planned.flatMap((t) => (mutantOf(t.task.id, name) ? [[t.task.id, (mutantOf(t.task.id, name) as Mutant).patch] as const] : []))),
      ),
    ]),
  );
  return {
    tasks: planned,
    agents,
    only: (taskId, agent) => !agent.startsWith(AGENT_PREFIX) || mutantOf(taskId, agent) !== undefined,
    agent: (spec) => patchAgents.get(spec),
    mutantOf,
  };
}

/**
 * What decides how a task grades: its repo's content, setup, tests, held-out tests and oracle (not
 * its id, instruction or metadata). Two tasks with equal keys grade every mutant alike.
 */
export async function taskKey(task: Task): Promise<string> {
  const { id: _id, instruction: _instruction, metadata: _metadata, sourceFile: _sourceFile, version: _version, ...grading } = task;
  const source = task.repo.kind === 'local' && existsSync(task.repo.path) ? (await listTree(task.repo.path)).digest : null;
  const heldOut = task.heldOut && existsSync(task.heldOut.path) ? (await listTree(task.heldOut.path)).digest : null;
  const parts = { format: STRENGTH_FORMAT, grading, source, heldOut };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

function cacheFile(stateDir: string, key: string): string {
  return join(stateDir, 'cache', 'strength', `${key}.json`);
}

async function readCache(stateDir: string, key: string): Promise<Map<string, MutantOutcome>> {
  try {
    const data = JSON.parse(await readFile(cacheFile(stateDir, key), 'utf8')) as { format?: number; outcomes?: Record<string, MutantOutcome> };
    return data.format === STRENGTH_FORMAT && data.outcomes ? new Map(Object.entries(data.outcomes)) : new Map();
  } catch {
    // No cache yet (or one this version cannot read): every mutant is graded.
    return new Map();
  }
}

/** Records a task's outcomes; errors are left out, so the next run grades those mutants again. */
export async function writeCache(stateDir: string, key: string, outcomes: ReadonlyMap<string, MutantOutcome>): Promise<void> {
  const kept = Object.fromEntries([...outcomes].filter(([, o]) => o.status !== 'error'));
  await mkdir(dirname(cacheFile(stateDir, key)), { recursive: true });
  await writeJsonAtomic(cacheFile(stateDir, key), { format: STRENGTH_FORMAT, outcomes: kept });
}
