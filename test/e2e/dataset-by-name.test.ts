/**
 * `crucible run NAME@VERSION --agent oracle`, as Harbor's `harbor run -d NAME@VERSION`: a registry
 * in Harbor's format names the Harbor sample in a local git repository at a pinned commit; the run
 * fetches it, imports it, and the oracle passes under --sandbox docker. A second run takes the
 * dataset from the cache: the repository is gone by then, and the cache holds the one entry.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectDocker, dockerClient } from '../../src/infra/docker/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const client = dockerClient();
const made = new Set<string>();

beforeAll(async () => {
  const docker = await detectDocker(client);
  if (!docker.ok) throw new Error(`these tests need a Docker engine: ${docker.reason} (fix: ${docker.fix})`);
});

afterAll(async () => {
  for (const ref of made)
    await client
      .getImage(ref)
      .remove({ force: true })
      .catch(() => undefined);
});

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@x.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@x.invalid',
};

describe('crucible run NAME@VERSION --agent oracle', () => {
  it(
    'runs a dataset from a registry in a local git repository, and the second run uses the cache',
    async () => {
      const root = tempDir();
      const repo = join(root, 'tasks-repo');
      mkdirSync(join(repo, 'tasks'), { recursive: true });
      cpSync(resolve('examples/harbor/hello-file'), join(repo, 'tasks', 'hello-file'), { recursive: true });
      // A nonce in the build context: this test builds (and removes) an image of its own.
      writeFileSync(join(repo, 'tasks', 'hello-file', 'environment', 'nonce.txt'), randomBytes(8).toString('hex'));
      const git = (args: string[]): string => execFileSync('git', args, { cwd: repo, env: GIT_ENV, encoding: 'utf8' }).trim();
      git(['init', '-q', '-b', 'main']);
      git(['add', '-A']);
      git(['commit', '-q', '-m', 'tasks']);
      const commit = git(['rev-parse', 'HEAD']);
      const registry = [
        {
          name: 'hello',
          version: '1.0',
          description: 'The Harbor sample',
          tasks: [{ name: 'hello-file', git_url: `file://${repo}`, git_commit_id: commit, path: 'tasks/hello-file' }],
        },
      ];
      writeFileSync(join(root, 'registry.json'), JSON.stringify(registry));

      const args = ['run', 'hello@1.0', '--registry', 'registry.json', '--agent', 'oracle', '--sandbox', 'docker', '--json'];
      const first = await runCli(args, { cwd: root, attempts: 1 });
      for (const m of first.stderr.matchAll(/crucible-env:[0-9a-f]{12}/g)) made.add(m[0]);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stderr).toContain('dataset hello@1.0 from registry.json: 1 task fetched and imported into');
      expect(JSON.parse(first.stdout)).toMatchObject({ runId: expect.any(String), attempts: [{ taskId: 'hello-file', agent: 'oracle', verdict: 'PASS' }] });
      const cache = join(root, '.crucible', 'cache', 'datasets');
      const entries = readdirSync(cache);
      expect(entries).toHaveLength(1);

      rmSync(repo, { recursive: true, force: true });
      const second = await runCli(args, { cwd: root, attempts: 1 });
      for (const m of second.stderr.matchAll(/crucible-env:[0-9a-f]{12}/g)) made.add(m[0]);
      expect(second.status, second.stderr).toBe(0);
      expect(second.stderr).toContain('1 task already imported in');
      expect(JSON.parse(second.stdout)).toMatchObject({ attempts: [{ taskId: 'hello-file', agent: 'oracle', verdict: 'PASS' }] });
      expect(readdirSync(cache)).toEqual(entries);
    },
    attemptBudget(2) + 120_000,
  );
});
