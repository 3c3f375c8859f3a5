import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tinyTaskSet } from '../cli/fixtures.js';

/**
 * Two tiny task sets (alpha: t1–t3 tagged even/odd/even; beta: t1–t2), both called tasks.yaml
 * so their default names collide, and a suite over them; `suite` is the suite file's YAML body.
 */
export function twoSetSuite(dir: string, suite: string): { suiteFile: string; alpha: string; beta: string } {
  mkdirSync(join(dir, 'alpha'), { recursive: true });
  mkdirSync(join(dir, 'beta'), { recursive: true });
  const alpha = tinyTaskSet(join(dir, 'alpha'), 3);
  const beta = tinyTaskSet(join(dir, 'beta'), 2);
  const suiteFile = join(dir, 'suite.yaml');
  writeFileSync(suiteFile, suite);
  return { suiteFile, alpha, beta };
}

/** alpha's even tasks (t1, t3) and beta's t2; oracle twice per task, nop once. */
export const SMOKE_SUITE = `suite: smoke
task_sets:
  - path: alpha/tasks.yaml
    name: alpha
    tags: [even]
  - path: beta/tasks.yaml
    name: beta
    tasks: [t2]
agents:
  - oracle
  - agent: nop
    runs: 1
runs: 2
`;
