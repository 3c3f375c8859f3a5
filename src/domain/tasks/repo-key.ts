import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RepoSource, Task } from '../../core/types/index.js';
import { GIT_ENV } from '../../infra/workspace/index.js';

/**
 * A stable key for grouping results by repository (the repo profile, the history's repo column):
 * what the repository is, never where a copy of it sits. Tasks that each carry their own copy of
 * one project group together; see keyOfLocalDir for the order of evidence.
 */
export function repoKey(source: RepoSource): string {
  if (source.kind === 'npm') return `npm:${source.package.name}`; // as a local copy's package.json would name it
  return source.kind === 'local' ? keyOfLocalDir(source.path) : normalizeRemote(source.url);
}

/** The key a task's attempts are grouped by: its `repo_key` when it sets one. */
export function taskRepoKey(task: Task): string {
  return task.repoKey ?? repoKey(task.repo);
}

/** Task id → repo key, the map the run statistics group repo profiles by. */
export function taskRepoKeys(tasks: readonly Task[]): Map<string, string> {
  return new Map(tasks.map((t) => [t.id, taskRepoKey(t)]));
}

// A run asks once per attempt recorded; the directory does not change under a run.
const localKeys = new Map<string, string>();

/**
 * A local directory's identity: a git repository's remote (its root commit when it has no remote),
 * else the package name its manifest declares, else its directory name. Only a directory that is
 * itself a repository's top level counts as one: the examples sit inside Crucible's own checkout,
 * and are not that repository.
 */
export function keyOfLocalDir(dir: string): string {
  const known = localKeys.get(dir);
  if (known !== undefined) return known;
  const key = gitKey(dir) ?? packageKey(dir) ?? `dir:${basename(dir)}`;
  localKeys.set(dir, key);
  return key;
}

function gitKey(dir: string): string | undefined {
  const run = (args: string[]): string | undefined => {
    try {
      return execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return undefined;
    }
  };
  const top = run(['rev-parse', '--show-toplevel']);
  if (top === undefined || !sameDir(top, dir)) return undefined;
  const remote = run(['config', '--get', 'remote.origin.url']);
  if (remote) return normalizeRemote(remote);
  const roots = run(['rev-list', '--max-parents=0', 'HEAD'])?.split('\n').filter(Boolean).sort();
  return roots && roots.length > 0 ? `git:${(roots[0] as string).slice(0, 12)}` : undefined;
}

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** The project name from package.json, pyproject.toml ([project] or [tool.poetry]), Cargo.toml or go.mod. */
function packageKey(dir: string): string | undefined {
  const read = (name: string): string | undefined => {
    try {
      return readFileSync(join(dir, name), 'utf8');
    } catch {
      return undefined;
    }
  };
  const pkg = read('package.json');
  if (pkg !== undefined) {
    try {
      const name = (JSON.parse(pkg) as { name?: unknown }).name;
      if (typeof name === 'string' && name !== '') return `npm:${name}`;
    } catch {
      // A package.json that does not parse names nothing; the other manifests may.
    }
  }
  const pyproject = read('pyproject.toml');
  const pyName = pyproject === undefined ? undefined : (tomlName(pyproject, 'project') ?? tomlName(pyproject, 'tool.poetry'));
  if (pyName !== undefined) return `python:${pyName}`;
  const cargo = read('Cargo.toml');
  const crate = cargo === undefined ? undefined : tomlName(cargo, 'package');
  if (crate !== undefined) return `cargo:${crate}`;
  const goModule = read('go.mod')?.match(/^module\s+(\S+)/m)?.[1];
  return goModule === undefined ? undefined : `go:${goModule}`;
}

/** `name = "…"` in one table of a TOML file: enough of TOML for a manifest's project name. */
function tomlName(text: string, table: string): string | undefined {
  let inTable = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = line.match(/^\[([^\]]+)\]$/);
    if (header) {
      inTable = (header[1] as string).trim() === table;
      continue;
    }
    const name = inTable ? line.match(/^name\s*=\s*["']([^"']+)["']/) : null;
    if (name) return name[1];
  }
  return undefined;
}

/**
 * One spelling per repository: `https://github.com/x/y.git`, `git@github.com:x/y` and
 * `ssh://git@github.com/x/y/` all become `github.com/x/y`. Anything else is kept as given.
 */
export function normalizeRemote(url: string): string {
  const trimmed = url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  const scp = trimmed.match(/^[^@/:]+@([^:/]+):(.+)$/);
  if (scp) return `${(scp[1] as string).toLowerCase()}/${scp[2]}`;
  const web = trimmed.match(/^(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/(.+)$/);
  if (web) return `${(web[1] as string).toLowerCase()}/${web[2]}`;
  return trimmed;
}
