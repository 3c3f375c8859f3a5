import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { formatStats } from '../../src/cli/format-stats.js';
import { stripAnsi } from '../../src/cli/format.js';
import { aggregateRun } from '../../src/domain/stats/index.js';
import { normalizeRemote, repoKey, taskRepoKey, taskRepoKeys } from '../../src/domain/tasks/repo-key.js';
import { GIT_ENV } from '../../src/infra/workspace/index.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();

function dirWith(files: Record<string, string>, name = 'repo'): string {
  const dir = join(tempDir(), name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

function gitRepo(files: Record<string, string>): string {
  const dir = dirWith(files);
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

const local = (path: string) => ({ kind: 'local' as const, path });

describe('repo keys: what the repository is, never where a copy sits', () => {
  it('a git repository by its remote, the same key as a git source of that remote', () => {
    const dir = gitRepo({ 'a.txt': 'a' });
    git(dir, 'remote', 'add', 'origin', 'git@github.com:Acme/widgets.git');
    expect(repoKey(local(dir))).toBe('github.com/Acme/widgets');
    expect(repoKey({ kind: 'git', url: 'https://github.com/Acme/widgets.git', commit: 'abc1234' })).toBe('github.com/Acme/widgets');
    expect(repoKey({ kind: 'git', url: 'https://github.com/Acme/widgets', commit: 'def5678' })).toBe('github.com/Acme/widgets');
    expect(normalizeRemote('ssh://git@GitHub.com:22/Acme/widgets/')).toBe('github.com/Acme/widgets');
  });

  it('a git repository without a remote by its root commit: two copies in different places are one repo', () => {
    const dir = gitRepo({ 'package.json': '{"name":"ignored-when-git"}' });
    const copy = join(tempDir(), 'elsewhere');
    cpSync(dir, copy, { recursive: true });
    const root = git(dir, 'rev-list', '--max-parents=0', 'HEAD');
    expect(repoKey(local(dir))).toBe(`git:${root.slice(0, 12)}`);
    expect(repoKey(local(copy))).toBe(repoKey(local(dir)));
  });

  it('a directory inside some other repository by its own package name, not that repository', () => {
    const outer = gitRepo({ 'projects/app/package.json': JSON.stringify({ name: '@acme/app' }) });
    expect(repoKey(local(join(outer, 'projects', 'app')))).toBe('npm:@acme/app');
  });

  it('plain directories by their package name: package.json, pyproject.toml ([project] or poetry)', () => {
    const a = dirWith({ 'package.json': JSON.stringify({ name: 'slugify', version: '1.0.0' }) }, 'task-1');
    const b = dirWith({ 'package.json': JSON.stringify({ name: 'slugify', version: '1.0.1' }) }, 'task-2');
    expect(repoKey(local(a))).toBe('npm:slugify');
    expect(repoKey(local(b))).toBe('npm:slugify');
    const py = dirWith({ 'pyproject.toml': '[build-system]\nname = "not-this"\n\n[project]\nname = "stats-lib"\nversion = "1"\n' });
    expect(repoKey(local(py))).toBe('python:stats-lib');
    const poetry = dirWith({ 'pyproject.toml': "[tool.poetry]\nname = 'poetic'\n" });
    expect(repoKey(local(poetry))).toBe('python:poetic');
  });

  it('a directory with nothing to go by, by its name only (not its path)', () => {
    const dir = dirWith({ 'roman.py': 'x = 1\n' }, 'py-roman');
    expect(repoKey(local(dir))).toBe('dir:py-roman');
  });

  it("a task's repo_key wins over everything, and is in the task-set schema", () => {
    const dir = tempDir();
    for (const name of ['copy-a', 'copy-b']) mkdirSync(join(dir, name));
    const file = join(dir, 'tasks.yaml');
    const task = (id: string, path: string, key?: string): string =>
      `  - id: ${id}\n    repo: { path: ${path} }\n${key ? `    repo_key: ${key}\n` : ''}    instruction: fix it\n    tests: { command: npm test, fail_to_pass: [t] }\n`;
    writeFileSync(
      file,
      `tasks:\n${task('one', 'copy-a', 'github.com/acme/widgets')}${task('two', 'copy-b', 'github.com/acme/widgets')}${task('three', 'copy-b')}`,
    );
    const tasks = loadTaskSet(file).tasks;
    expect(tasks.map(taskRepoKey)).toEqual(['github.com/acme/widgets', 'github.com/acme/widgets', 'dir:copy-b']);
    expect(() => {
      writeFileSync(file, `tasks:\n${task('one', 'copy-a', '""')}`);
      loadTaskSet(file);
    }).toThrow(/repo_key/);
  });
});

describe('the repo profile', () => {
  const attempt = (taskId: string, agent: string, pass: boolean, index: number): AttemptResult => ({
    attemptId: `${taskId}-${agent}`,
    runId: 'r',
    taskId,
    taskVersion: '1',
    agent,
    trial: 0,
    index,
    schemaVersion: 1,
    verdict: pass ? 'PASS' : 'FAIL',
    cause: pass ? 'passed' : 'tests_failed',
    message: '',
    sandbox: 'local',
    checks: [],
    timings: { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 },
    startedAt: '',
    finishedAt: '',
  });
  const attempts = ['t1', 't2', 't3'].flatMap((t, i) => [attempt(t, 'oracle', true, 2 * i), attempt(t, 'nop', false, 2 * i + 1)]);
  const taskOf = (id: string, path: string): Task => ({ id, repo: local(path) }) as Task;

  it('groups copies of one package as one repo', () => {
    const pkg = JSON.stringify({ name: 'widgets' });
    const tasks = [
      taskOf('t1', dirWith({ 'package.json': pkg })),
      taskOf('t2', dirWith({ 'package.json': pkg })),
      taskOf('t3', dirWith({ 'setup.py': '' }, 'other')),
    ];
    const stats = aggregateRun(attempts, { taskRepo: taskRepoKeys(tasks) });
    expect(stats.repos.profiles.map((p) => [p.repo, p.tasks])).toEqual([
      ['dir:other', 1],
      ['npm:widgets', 2],
    ]);
    expect(stripAnsi(formatStats(stats))).toMatch(/repo profile \(pooled over agents; not a ranking of repos\)\nrepo +agents/);
  });

  it('says so when every repo has one task, instead of per-repo rates', () => {
    const tasks = ['t1', 't2', 't3'].map((id) => taskOf(id, dirWith({ 'package.json': JSON.stringify({ name: `pkg-${id}` }) })));
    const text = stripAnsi(formatStats(aggregateRun(attempts, { taskRepo: taskRepoKeys(tasks) })));
    expect(text).toMatch(/repo profile each of the 3 repos has one task, so per-repo rates would only repeat per-task results/);
    expect(text).not.toMatch(/npm:pkg-t1/);
  });
});
