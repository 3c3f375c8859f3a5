import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { SandboxLayout } from '../sandbox/executor.js';
import type { Task } from '../types/index.js';

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
}

/**
 * What the sandbox exposes in each phase. Hidden: the task set's directory (oracle patches,
 * held-out tests), Crucible's state directory, and the user's home — except the toolchains on PATH
 * that live there (pyenv, cargo, nvm), which are re-exposed read-only. The workspace is the only
 * thing the agent may write; the baseline's objects are readable so `git` works in the workspace.
 */
export function sandboxLayout(input: LayoutInput): SandboxLayout {
  const home = homedir();
  const hidden = [dirname(input.task.sourceFile), input.stateDir, home];
  if (input.task.heldOut) hidden.push(input.task.heldOut.path);
  return {
    writable: [input.workspace, ...(input.alsoWritable ?? [])],
    hidden: dedupe(hidden.map((p) => resolve(p))),
    readOnly: [...(input.baselineGitDir ? [join(input.baselineGitDir, 'objects')] : []), ...toolchainsUnder(home)],
    home: join(input.attemptDir, 'home'),
    tmp: join(input.attemptDir, 'tmp'),
  };
}

/** Top-level directories of $HOME that hold a PATH entry, e.g. ~/.pyenv for ~/.pyenv/shims. */
function toolchainsUnder(home: string): string[] {
  const roots = new Set<string>();
  const candidates = [...(process.env.PATH ?? '').split(':'), process.env.PYENV_ROOT ?? ''];
  for (const entry of candidates) {
    if (!entry) continue;
    const rel = relative(home, resolve(entry));
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) continue;
    const top = join(home, rel.split(sep)[0] ?? '');
    if (existsSync(top)) roots.add(top);
  }
  return [...roots];
}

function dedupe(paths: string[]): string[] {
  return [...new Set(paths)];
}
