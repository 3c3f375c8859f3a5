import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

// One of examples/real's tasks, validated against the real npm registry (reachable in CI): the
// sources are fetched and verified against the pinned integrity, nop must fail, the oracle pass 3/3.
// Each attempt's setup installs tape from the registry, so every attempt counts twice in the budget.
const TASK = 'object-inspect-quote-style';
const ATTEMPTS = 2 * (1 + 1 + 3); // preflight, nop, oracle ×3

describe('examples/real against the npm registry', () => {
  const tmp = useTempDirs();
  it(
    `validates ${TASK}: fetched and verified from the registry, nop fails, oracle passes 3/3`,
    () => {
      const state = tmp();
      const result = crucible(['validate', 'examples/real/tasks.yaml', '--task', TASK, '--out', state], { attempts: ATTEMPTS });
      expect(result.stdout + result.stderr).toMatch(new RegExp(`^valid\\s+${TASK}\\s+fails 1/1\\s+passes 3/3`, 'm'));
      expect(result.status).toBe(0);
      const cached = readdirSync(join(state, 'cache', 'npm'), { recursive: true }).map(String);
      expect(cached.filter((f) => f.endsWith('.tgz')).sort()).toEqual([
        expect.stringMatching(/object-inspect\/1\.13\.2\.tgz$/),
        expect.stringMatching(/object-inspect\/1\.13\.3\.tgz$/),
      ]);
    },
    attemptBudget(ATTEMPTS + 1),
  );

  // The shape of the ten npm fixes SWE-bench-style harnesses stumble on: at the buggy version the
  // test file crashes (tape lets the exception end the process), so the fail-to-pass id is never
  // reported at the baseline; the oracle's run reports it, so it counts as failing there.
  const CRASH = 'qs-comma-iso-charset-crash';
  it(
    `validates ${CRASH}, whose test file crashes at the published buggy version`,
    () => {
      const result = crucible(['validate', 'examples/real/tasks.yaml', '--task', CRASH, '--out', tmp()], { attempts: ATTEMPTS });
      expect(result.stdout + result.stderr).toMatch(new RegExp(`^valid\\s+${CRASH}\\s+fails 1/1\\s+passes 3/3`, 'm'));
      expect(result.status).toBe(0);
    },
    attemptBudget(ATTEMPTS + 1),
  );
});
