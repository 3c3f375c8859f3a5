import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from './git.js';

/**
 * Files that running code leaves behind in repos that do not ignore them. Without this, running
 * pytest once would count as "changing" a repo that has no .gitignore.
 */
export const RUNTIME_DEBRIS = ['__pycache__/', '*.py[co]', '.pytest_cache/', '.mypy_cache/', '.ruff_cache/', '.DS_Store'];

export interface Baseline {
  /** The harness's git directory, outside the workspace: the agent cannot rewrite it. */
  gitDir: string;
  commit: string;
}

/**
 * Commits the workspace as it stands into a git directory the harness owns, then gives the
 * workspace a `.git` of its own for the agent (same commit, objects shared read-only through
 * alternates). Whatever the agent does to that `.git` — commits, resets, deleting it — the diff is
 * taken against `commit` in `gitDir`.
 */
export async function commitBaseline(workspace: string, gitDir: string): Promise<Baseline> {
  await git({}, ['init', '--quiet', '--bare', '--initial-branch=main', gitDir]);
  await mkdir(join(gitDir, 'info'), { recursive: true });
  await writeFile(join(gitDir, 'info', 'exclude'), `${RUNTIME_DEBRIS.join('\n')}\n`);
  const target = { gitDir, workTree: workspace };
  await git(target, ['add', '--all']);
  await git(target, ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'crucible baseline']);
  const commit = (await git(target, ['rev-parse', 'HEAD'])).trim();
  await giveAgentRepo(workspace, gitDir, commit);
  return { gitDir, commit };
}

async function giveAgentRepo(workspace: string, baselineGitDir: string, commit: string): Promise<void> {
  const agentGit = join(workspace, '.git');
  await git({}, ['init', '--quiet', '--initial-branch=main', workspace]);
  await mkdir(join(agentGit, 'objects', 'info'), { recursive: true });
  await writeFile(join(agentGit, 'objects', 'info', 'alternates'), `${join(baselineGitDir, 'objects')}\n`);
  // The baseline index already holds the stat data of these very files: no re-hashing needed.
  await copyFile(join(baselineGitDir, 'index'), join(agentGit, 'index'));
  await git({ cwd: workspace }, ['update-ref', 'refs/heads/main', commit]);
}
