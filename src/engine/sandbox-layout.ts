import { dirname, join, resolve } from 'node:path';
import type { SandboxLayout } from '../infra/sandbox/index.js';
import type { Task } from '../core/types/index.js';
import { containerEnvironmentOf, type ResolvedEnvironment } from '../domain/environment/index.js';

export interface LayoutInput {
  task: Task;
  /** Crucible's state directory (`.crucible`): other attempts, caches, history. */
  stateDir: string;
  workspace: string;
  attemptDir: string;
  /** Absent before the baseline exists (during setup). */
  baselineGitDir?: string;
  /** Extra writable directories for this phase (a results dir for tests, a tool cache for setup). */
  alsoWritable?: string[];
  /** The run's resolved environments by task id (docker runs): the task's image goes into the layout. */
  environments?: ReadonlyMap<string, ResolvedEnvironment>;
}

/**
 * What the sandbox exposes in each phase. The bwrap executor shows only an allowlist of system
 * directories and toolchains plus these paths, so the user's home and the rest of the host are
 * absent already. Hidden, should one of them lie inside something shown (a toolchain directory,
 * say): the task set's directory (oracle patches, held-out tests) and Crucible's state directory.
 * The workspace is the only thing the agent may write; the baseline's objects are readable so
 * `git` works in the workspace.
 */
export function sandboxLayout(input: LayoutInput): SandboxLayout {
  const hidden = [dirname(input.task.sourceFile), input.stateDir];
  if (input.task.heldOut) hidden.push(input.task.heldOut.path);
  return {
    writable: [input.workspace, ...(input.alsoWritable ?? [])],
    hidden: [...new Set(hidden.map((p) => resolve(p)))],
    readOnly: input.baselineGitDir ? [join(input.baselineGitDir, 'objects')] : [],
    home: join(input.attemptDir, 'home'),
    tmp: join(input.attemptDir, 'tmp'),
    ...withContainer(containerEnvironmentOf(input.environments?.get(input.task.id), input.task), input.workspace),
  };
}

/** A container-native task's workspace is also mounted at its workdir (`/app`): the same files under the image's own path. */
function withContainer(environment: SandboxLayout['environment'], workspace: string): Pick<SandboxLayout, 'environment' | 'mounts'> {
  if (!environment) return {};
  return environment.workdir !== undefined ? { environment, mounts: [{ source: workspace, target: environment.workdir, readOnly: false }] } : { environment };
}
