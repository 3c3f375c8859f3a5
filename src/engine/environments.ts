/**
 * The run's task environments: checked against the sandbox before anything is written, then
 * resolved to local images once per run (src/domain/environment), before the preflight and every attempt.
 */
import { resolveEnvironments, type ResolvedEnvironment } from '../domain/environment/index.js';
import { InputError } from '../core/errors.js';
import { sandboxTraits, type SandboxKind } from '../infra/sandbox/index.js';
import type { TaskWhere } from '../domain/tasks/index.js';
import type { Task, TaskDefect } from '../core/types/index.js';

export interface RunEnvironments {
  /** By task id; empty unless the run uses docker. */
  resolved: ReadonlyMap<string, ResolvedEnvironment>;
  /** Tasks whose image could not be had: their attempts are task errors. */
  defects: ReadonlyMap<string, TaskDefect[]>;
}

/**
 * A task with an `environment` needs the docker sandbox, and docker needs an engine: either missing
 * is one line (exit 2) naming the task, its file and the fix, before the run exists.
 */
export async function checkEnvironmentSandbox(tasks: readonly Task[], sandbox: SandboxKind, where: (task: Task) => TaskWhere): Promise<void> {
  const first = tasks.find((t) => t.environment !== undefined);
  if (!sandboxTraits(sandbox).runsTaskImages) {
    if (first === undefined) return;
    const w = where(first);
    const others = tasks.filter((t) => t.environment !== undefined).length - 1;
    throw new InputError(
      `${w.file}: ${w.prefix}.environment: task ${first.id}${others > 0 ? ` (and ${others} more)` : ''} runs in a Docker image, which the ${sandbox} sandbox cannot run (fix: add --sandbox docker)`,
    );
  }
  // Loaded only for docker runs: the engine client is slow to import.
  const { detectDocker } = await import('../infra/docker/index.js');
  const docker = await detectDocker();
  if (!docker.ok) {
    const needs = first ? `task ${first.id} (${where(first).file}) runs in a Docker image` : '--sandbox docker runs every command in a container';
    throw new InputError(`${needs}, but ${docker.reason} (fix: ${docker.fix})`);
  }
}

/** Resolves the environments of `tasks` under docker (every task: those without one run in the host view); nothing otherwise. */
export async function resolveRunEnvironments(
  tasks: readonly Task[],
  sandbox: SandboxKind,
  where: (task: Task) => TaskWhere,
  onProgress: (line: string) => void,
): Promise<RunEnvironments> {
  if (!sandboxTraits(sandbox).runsTaskImages || tasks.length === 0) return { resolved: new Map(), defects: new Map() };
  const results = await resolveEnvironments(tasks, { onProgress });
  const resolved = new Map<string, ResolvedEnvironment>();
  const defects = new Map<string, TaskDefect[]>();
  for (const task of tasks) {
    const result = results.get(task.id);
    if (result?.ok) resolved.set(task.id, result.environment);
    else if (result) {
      const w = where(task);
      defects.set(task.id, [
        { file: w.file, field: `${w.prefix}.environment.${result.failure.field}`, problem: result.failure.problem, fix: result.failure.fix },
      ]);
    }
  }
  return { resolved, defects };
}
