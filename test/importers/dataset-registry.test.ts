/**
 * Datasets by name: a registry in Harbor's format names tasks in git repositories at pinned
 * commits; `crucible import harbor NAME@VERSION` (and run, validate) fetch exactly those, import
 * them once and keep them in the state directory. Real git, local repositories made here; hostile
 * registries are one line naming the file and field, exit 2, before anything is fetched or kept.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { latestVersion, parseDatasetSpec } from '../../src/features/importers/index.js';
import { chooseDataset } from '../../src/features/importers/dataset-registry.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const SAMPLE = resolve('examples/harbor/hello-file');

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.invalid',
};

function gitIn(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

/** A git repository holding the Harbor sample at tasks/hello-file (and `extra` files); its URL and commit. */
function datasetRepo(root: string, extra: (repo: string) => void = () => undefined): { url: string; commit: string; repo: string } {
  const repo = join(root, 'datasets-repo');
  mkdirSync(join(repo, 'tasks'), { recursive: true });
  cpSync(SAMPLE, join(repo, 'tasks', 'hello-file'), { recursive: true });
  extra(repo);
  gitIn(repo, ['init', '-q', '-b', 'main']);
  // As GitHub does: the fetch leaves the files out, and git archive fetches them from the promisor remote.
  gitIn(repo, ['config', 'uploadpack.allowFilter', 'true']);
  gitIn(repo, ['add', '-A']);
  gitIn(repo, ['commit', '-q', '-m', 'tasks']);
  return { url: `file://${repo}`, commit: gitIn(repo, ['rev-parse', 'HEAD']), repo };
}

function registry(root: string, datasets: unknown): string {
  const file = join(root, 'registry.json');
  writeFileSync(file, typeof datasets === 'string' ? datasets : JSON.stringify(datasets, null, 2));
  return file;
}

function hello(url: string, commit: string | null, path = 'tasks/hello-file', version = '1.0'): Record<string, unknown> {
  return { name: 'hello', version, description: 'the sample', tasks: [{ name: 'hello-file', git_url: url, git_commit_id: commit, path }] };
}

function datasetEntries(stateDir: string): string[] {
  const dir = join(stateDir, 'cache', 'datasets');
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('crucible import harbor NAME@VERSION', () => {
  it('fetches the pinned commit, imports the task, and keeps it: a second import fetches nothing', async () => {
    const root = tempDir();
    const { url, commit, repo } = datasetRepo(root);
    // A later commit moves the branch: the pinned one is still what is imported.
    writeFileSync(join(repo, 'tasks', 'hello-file', 'instruction.md'), 'changed after the pin\n');
    gitIn(repo, ['commit', '-q', '-am', 'later']);
    registry(root, [hello(url, commit), hello(url, commit, 'tasks/hello-file', '0.9')]);

    const first = await runCli(['import', 'harbor', 'hello@1.0', '--registry', 'registry.json', '-o', 'out'], { cwd: root });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/dataset hello@1\.0 from registry\.json: 1 task fetched and imported into \.crucible\/cache\/datasets\/hello@1\.0-/);
    expect(first.stdout).toContain('wrote 1 task to out/tasks.yaml');
    const set = loadTaskSet(join(root, 'out', 'tasks.yaml'));
    expect(set.tasks.map((t) => t.id)).toEqual(['hello-file']);
    expect(readFileSync(join(root, 'out', 'hello-file', 'instruction.md'), 'utf8')).not.toContain('changed after the pin');
    expect(existsSync(join(root, 'out', 'dataset.json'))).toBe(false);
    const entries = datasetEntries(join(root, '.crucible'));
    expect(entries).toHaveLength(1);
    const record = JSON.parse(readFileSync(join(root, '.crucible', 'cache', 'datasets', entries[0] as string, 'dataset.json'), 'utf8')) as {
      tasks: Array<{ git_commit_id: string }>;
    };
    expect(record.tasks).toEqual([{ name: 'hello-file', git_url: url, git_commit_id: commit, path: 'tasks/hello-file' }]);

    // With the repository gone, only the cache can answer.
    rmSync(repo, { recursive: true, force: true });
    const second = await runCli(['import', 'harbor', 'hello@1.0', '--registry', 'registry.json', '-o', 'again'], { cwd: root });
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toContain('1 task already imported in');
    expect(datasetEntries(join(root, '.crucible'))).toEqual(entries);
    expect(loadTaskSet(join(root, 'again', 'tasks.yaml')).tasks.map((t) => t.id)).toEqual(['hello-file']);
  });

  it('reads the registry from $CRUCIBLE_REGISTRY, and a bare name means the latest version', async () => {
    const root = tempDir();
    const { url, commit } = datasetRepo(root);
    const file = registry(root, [hello(url, commit, 'tasks/hello-file', '1.9'), hello(url, commit, 'tasks/hello-file', '1.10')]);
    const r = await runCli(['import', 'harbor', 'hello', '-o', 'out'], { cwd: root, env: { CRUCIBLE_REGISTRY: file } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('dataset hello@1.10 from');
  });

  it("takes an unpinned task at its remote's HEAD, and says so", async () => {
    const root = tempDir();
    const { url, commit } = datasetRepo(root);
    registry(root, [hello(url, null)]);
    const r = await runCli(['import', 'harbor', 'hello@1.0', '--registry', 'registry.json', '-o', 'out'], { cwd: root });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: registry.json: [0].tasks[0]: no git_commit_id; took ${url}'s HEAD, ${commit}`);
  });

  it('reads a registry from a git repository (registry.json at its root)', async () => {
    const root = tempDir();
    const { url, commit, repo } = datasetRepo(root);
    writeFileSync(join(repo, 'registry.json'), JSON.stringify([hello(url, commit)]));
    gitIn(repo, ['add', 'registry.json']);
    gitIn(repo, ['commit', '-q', '-m', 'registry']);
    const r = await runCli(['import', 'harbor', 'hello@1.0', '--registry', url, '-o', 'out'], { cwd: root });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`dataset hello@1.0 from ${url}: 1 task`);
  });

  it('leaves task directories and task-set files as they were', async () => {
    const root = tempDir();
    cpSync(SAMPLE, join(root, 'hello-file'), { recursive: true });
    const r = await runCli(['import', 'harbor', 'hello-file', '-o', 'out'], { cwd: root });
    expect(r.status, r.stderr).toBe(0);
    expect(datasetEntries(join(root, '.crucible'))).toEqual([]);
    const missing = await runCli(['validate', 'missing.yaml'], { cwd: root });
    expect(missing.status).toBe(2);
    expect(missing.stderr).not.toContain('dataset');
  });
});

describe('a hostile or broken registry: one line naming the file and field, exit 2, nothing fetched or kept', () => {
  async function refused(root: string, args: string[], message: RegExp, env: Record<string, string> = {}): Promise<void> {
    const r = await runCli(['import', 'harbor', ...args, '-o', 'out'], { cwd: root, env });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('fix:');
    expect(r.stderr).not.toContain('this is a bug');
    expect(existsSync(join(root, 'out'))).toBe(false);
    expect(datasetEntries(join(root, '.crucible'))).toEqual([]);
  }

  it('a path that escapes the repository, or is absolute', async () => {
    const root = tempDir();
    const { url, commit } = datasetRepo(root);
    registry(root, [hello(url, commit, '../../etc')]);
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /registry\.json: \[0\]\.tasks\[0\]\.path: "\.\.\/\.\.\/etc" escapes its directory/);
    registry(root, [hello(url, commit, '/etc')]);
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /\[0\]\.tasks\[0\]\.path: "\/etc" is absolute/);
  });

  it('a path through a symlink the repository holds', async () => {
    const root = tempDir();
    const { url, commit } = datasetRepo(root, (repo) => symlinkSync('tasks', join(repo, 'linked')));
    registry(root, [hello(url, commit, 'linked/hello-file')]);
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /\[0\]\.tasks\[0\]\.path: linked\/hello-file /);
  });

  it('a commit id that is not one, or that the repository does not have', async () => {
    const root = tempDir();
    const { url } = datasetRepo(root);
    registry(root, [hello(url, 'main')]);
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /\[0\]\.tasks\[0\]\.git_commit_id: "main" is not a full commit id/);
    registry(root, [hello(url, '0123456789abcdef0123456789abcdef01234567')]);
    await refused(
      root,
      ['hello@1.0', '--registry', 'registry.json'],
      /\[0\]\.tasks\[0\]\.git_commit_id: 0123456789abcdef0123456789abcdef01234567 cannot be fetched/,
    );
  });

  it('an unknown name (did you mean) or version', async () => {
    const root = tempDir();
    const { url, commit } = datasetRepo(root);
    registry(root, [hello(url, commit), { ...hello(url, commit), name: 'terminal-bench' }]);
    await refused(root, ['helo@1.0', '--registry', 'registry.json'], /registry\.json: no dataset named helo \(fix: did you mean hello\?\)/);
    await refused(root, ['hello@2.0', '--registry', 'registry.json'], /dataset hello has no version 2\.0 \(fix: use one of 1\.0\)/);
  });

  it('a git URL of something that is not a git repository, or of a transport that runs commands', async () => {
    const root = tempDir();
    const { commit } = datasetRepo(root);
    mkdirSync(join(root, 'plain'));
    writeFileSync(join(root, 'plain', 'file'), 'not a repository\n');
    registry(root, [hello(`file://${join(root, 'plain')}`, commit)]);
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /\[0\]\.tasks\[0\]\.git_url: file:\/\/\S+\/plain is not a git repository/);
    registry(root, [hello(`ext::sh -c touch% ${join(root, 'pwned')}`, commit)]);
    await refused(
      root,
      ['hello@1.0', '--registry', 'registry.json'],
      /\[0\]\.tasks\[0\]\.git_url: ext::sh .*only https:\/\/, ssh:\/\/, git:\/\/ and file:\/\//,
    );
    expect(existsSync(join(root, 'pwned'))).toBe(false);
  });

  it('run and validate resolve the name the same way, and refuse before any attempt', async () => {
    const root = tempDir();
    const { url, commit } = datasetRepo(root);
    registry(root, [hello(url, commit, 'tasks/../../x')]);
    for (const command of [
      ['run', 'hello@1.0', '--agent', 'oracle'],
      ['validate', 'hello@1.0'],
    ]) {
      const r = await runCli([...command, '--registry', 'registry.json'], { cwd: root });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^.*registry\.json: \[0\]\.tasks\[0\]\.path: "tasks\/\.\.\/\.\.\/x" escapes its directory.*\(fix: /),
      ]);
      expect(existsSync(join(root, '.crucible', 'runs'))).toBe(false);
      expect(existsSync(join(root, '.crucible', 'validate'))).toBe(false);
      expect(datasetEntries(join(root, '.crucible'))).toEqual([]);
    }
    const file = await runCli(['run', 'registry.json', '--registry', 'registry.json', '--agent', 'oracle'], { cwd: root });
    expect(file.status).toBe(2);
    expect(file.stderr).toMatch(/--registry: registry\.json is a path, not a dataset name \(fix: /);
  });

  it('a missing task directory looked up as a dataset says so, when no --registry asked for one', async () => {
    const root = tempDir();
    const { url, commit } = datasetRepo(root);
    const file = registry(root, [hello(url, commit)]);
    await refused(
      root,
      ['hello-fil'],
      /^error hello-fil: no such file or directory, so looked up as a dataset: \S+registry\.json: no dataset named hello-fil \(fix: the registry has hello\)/,
      {
        CRUCIBLE_REGISTRY: file,
      },
    );
  });

  it('malformed JSON, or JSON that is not a list of datasets', async () => {
    const root = tempDir();
    registry(root, '[{"name": "hello", ');
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /registry\.json: not valid JSON/);
    registry(root, { datasets: [] });
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /registry\.json: expected a JSON list of datasets, got an object/);
    registry(root, [{ name: 'hello', version: '1.0', tasks: [{ name: 'x', path: 'tasks/x' }] }]);
    await refused(root, ['hello@1.0', '--registry', 'registry.json'], /registry\.json: \[0\]\.tasks\[0\]\.git_url: missing/);
    await refused(root, ['hello@1.0', '--registry', 'no-such.json'], /--registry no-such\.json: no such file/);
  });

  it('a registry fetched from elsewhere may not name a repository on this machine', () => {
    const remote = { shown: 'https://example.invalid/r.git#registry.json', remote: true };
    for (const url of ['file:///srv/private.git', '/srv/private.git', 'private'])
      expect(() => chooseDataset(JSON.stringify([hello(url, 'a'.repeat(40))]), { name: 'hello' }, remote)).toThrow(
        /\[0\]\.tasks\[0\]\.git_url: .* may not name a repository on this machine \(fix: an https:\/\/ URL\)/,
      );
    expect(chooseDataset(JSON.stringify([hello('https://example.invalid/t.git', 'A'.repeat(40))]), { name: 'hello' }, remote).tasks[0]).toMatchObject({
      gitUrl: 'https://example.invalid/t.git',
      commit: 'a'.repeat(40),
    });
  });
});

describe('names and versions', () => {
  it('reads NAME@VERSION and NAME, and nothing with a path separator', () => {
    expect(parseDatasetSpec('terminal-bench@2.0')).toEqual({ name: 'terminal-bench', version: '2.0' });
    expect(parseDatasetSpec('hello')).toEqual({ name: 'hello' });
    expect(parseDatasetSpec('examples/tasks.yaml')).toBeUndefined();
    expect(parseDatasetSpec('a@b@c')).toBeUndefined();
    expect(parseDatasetSpec('@1.0')).toBeUndefined();
  });

  it('takes head, else the highest numeric version, else the last in text order', () => {
    expect(latestVersion(['1.0', 'head', '2.0'])).toBe('head');
    expect(latestVersion(['1.0', '1.10', '1.9'])).toBe('1.10');
    expect(latestVersion(['0.1', '0.2.1', '0.2'])).toBe('0.2.1');
    expect(latestVersion(['1.0rc1', '1.0'])).toBe('1.0');
    expect(latestVersion(['b', 'a', 'c'])).toBe('c');
    expect(latestVersion(['parity', '1.0'])).toBe('1.0');
  });
});
