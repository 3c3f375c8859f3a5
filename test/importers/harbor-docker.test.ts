/**
 * The Harbor sample end to end on the real Docker engine, as a new user runs it: imported, then
 * validated under --sandbox docker (its Dockerfile is FROM crucible/host:1: no registry needed):
 * nop fails, the oracle script passes 3/3, and a run's attempt shows its reward.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectDocker, dockerClient } from '../../src/infra/docker/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { crucible } from '../helpers/cli.js';
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

describe('examples/harbor imported and validated under --sandbox docker', () => {
  it(
    'nop fails, the oracle script passes every time, and show prints the reward',
    () => {
      const work = tempDir();
      const task = join(work, 'hello-file');
      cpSync(resolve('examples/harbor/hello-file'), task, { recursive: true });
      // A nonce in the build context: this test builds (and removes) an image of its own.
      writeFileSync(join(task, 'environment', 'nonce.txt'), randomBytes(8).toString('hex'));
      const imported = crucible(['import', 'harbor', task, '-o', join(work, 'out')], { cwd: work });
      expect(imported.status, imported.stderr).toBe(0);
      expect(imported.stdout).toContain('wrote 1 task to');

      const validated = crucible(['validate', 'out/tasks.yaml', '--sandbox', 'docker'], { cwd: work, attempts: 4 });
      for (const m of validated.stderr.matchAll(/crucible-env:[0-9a-f]{12}/g)) made.add(m[0]);
      expect(validated.status, validated.stdout + validated.stderr).toBe(0);
      expect(validated.stdout).toMatch(/valid\s+hello-file\s+fails 1\/1\s+passes 3\/3/);

      const run = crucible(['run', 'out/tasks.yaml', '--sandbox', 'docker', '--agent', 'oracle', '--json'], { cwd: work, attempts: 1 });
      expect(run.status, run.stderr).toBe(0);
      const runId = (JSON.parse(run.stdout) as { runId: string }).runId;
      const plan = JSON.parse(readFileSync(join(work, '.crucible', 'runs', runId, 'plan.json'), 'utf8')) as { attempts: Array<{ attemptId: string }> };
      const attemptId = plan.attempts[0]?.attemptId ?? '';
      const record = JSON.parse(readFileSync(join(work, '.crucible', 'runs', runId, 'attempts', attemptId, 'attempt.json'), 'utf8')) as {
        verdict: string;
        tests: { reward: number };
      };
      expect(record).toMatchObject({ verdict: 'PASS', tests: { reward: 1 } });
      const shown = crucible(['show', attemptId], { cwd: work });
      expect(shown.stdout).toContain('reward 1');
    },
    attemptBudget(5) + 120_000,
  );
});
