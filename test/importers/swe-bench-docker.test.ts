/**
 * The imported sample under the docker sandbox, on the real engine: `--dockerfile` puts every task
 * in an image built FROM crucible/host:1 (SWE-bench's own images cannot be pulled offline), and the
 * task validates there as it does under bwrap.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { detectDocker, dockerClient } from '../../src/infra/docker/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

beforeAll(async () => {
  const docker = await detectDocker(dockerClient());
  if (!docker.ok) throw new Error(`these tests need a Docker engine: ${docker.reason} (fix: ${docker.fix})`);
});

it(
  'an imported instance validates with --sandbox docker',
  () => {
    const repos = tempDir();
    execFileSync('sh', [resolve('examples/swe-bench/make-repo.sh'), repos]);
    const out = join(tempDir(), 'imported');
    const args = ['import', 'swe-bench', resolve('examples/swe-bench/instances.jsonl'), '--ids', 'example__calc-2', '--repos', repos, '-o', out];
    expect(crucible([...args, '--dockerfile', resolve('examples/swe-bench/Dockerfile')]).status).toBe(0);
    expect(readFileSync(join(out, 'tasks.yaml'), 'utf8')).toContain('dockerfile: env/Dockerfile');
    const validated = crucible(['validate', join(out, 'tasks.yaml'), '--sandbox', 'docker', '-o', join(out, '.crucible')], { attempts: 4 });
    expect(validated.stdout).toMatch(/valid\s+example__calc-2\s+fails 1\/1\s+passes 3\/3/);
    expect(validated.status).toBe(0);
  },
  attemptBudget(4),
);
