import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StrengthSummary, TaskStrength } from '../../src/features/strength/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/**
 * A deliberately weak task: `clamp` is fixed on both sides, but its one test asserts one input
 * below the range. Every mistake on the upper side, or at the boundary, passes it.
 */
function weakTaskSet(): string {
  const dir = tempDir();
  const files: Record<string, string> = {
    'clamp/src/clamp.mjs': 'export function clamp(value, low, high) {\n  return value;\n}\n',
    'clamp/test/clamp.test.mjs':
      "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { clamp } from '../src/clamp.mjs';\ntest('clamps below', () => assert.equal(clamp(-5, 0, 10), 0));\n",
    'fix.patch': [
      '--- a/src/clamp.mjs',
      '+++ b/src/clamp.mjs',
      '@@ -1,3 +1,5 @@',
      ' export function clamp(value, low, high) {',
      '-  return value;',
      '+  if (value < low) return low;',
      '+  if (value > high) return high;',
      '+  return value;',
      ' }',
      '',
    ].join('\n'),
    'tasks.yaml': [
      'tasks:',
      '  - id: clamp',
      '    repo: { path: clamp }',
      '    instruction: clamp value into [low, high]',
      '    tests:',
      '      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/',
      '      fail_to_pass: [clamps below]',
      '    oracle: { patch: fix.patch }',
      '',
    ].join('\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return join(dir, 'tasks.yaml');
}

interface StrengthReport {
  valid: boolean;
  dir: string;
  strengthFile: string;
  strength: TaskStrength[];
  strengthSummary: StrengthSummary;
}

const MUTANTS = 6;
// nop and oracle 2 runs each, and every mutant once.
const ATTEMPTS = 4 + MUTANTS;

describe('crucible validate --strength', () => {
  it(
    'reports a weakly tested task weak; its surviving mutant, graded by crucible grade, PASSES; a re-run takes the cache and gives the same numbers',
    async () => {
      const tasks = weakTaskSet();
      const out = tempDir();
      const args = ['validate', tasks, '--strength', '--max-mutants', String(MUTANTS), '--runs', '2', '--sandbox', 'bwrap', '--out', out, '--json'];
      const first = await runCli(args, { attempts: ATTEMPTS });
      expect(first.status, first.stderr).toBe(0);
      const report = JSON.parse(first.stdout) as StrengthReport;
      const [clamp] = report.strength;
      expect(clamp?.sampled).toBe(MUTANTS);
      expect(clamp?.strength).toBeLessThan(0.8);
      expect(clamp?.counts.killed).toBeGreaterThan(0);
      expect(clamp?.flake).toMatchObject({ rate: 0, runs: 2, verdictChanged: [] });
      expect(report.strengthSummary.weakest[0]?.taskId).toBe('clamp');
      const survivor = clamp?.survivors[0];
      expect(survivor).toBeDefined();
      const patch = readFileSync(join(out, survivor?.patchFile ?? ''), 'utf8');
      expect(patch).toContain('+++ b/src/clamp.mjs');
      expect(existsSync(join(out, 'strength.json'))).toBe(true);

      // The surviving mutant is a wrong fix the task accepts: grade it as somebody's prediction.
      const predictions = tempDir();
      writeFileSync(join(predictions, 'clamp.patch'), patch);
      // Graded in the same state directory, the run shows the task's strength beside its pass rate.
      const graded = await runCli(['grade', tasks, '--predictions', predictions, '--sandbox', 'bwrap', '--out', out, '--json'], { attempts: 1 });
      expect(graded.status, graded.stderr).toBe(0);
      const gradedRun = JSON.parse(graded.stdout) as { runId: string; attempts: Array<{ verdict: string }> };
      expect(gradedRun.attempts.map((a) => a.verdict)).toEqual(['PASS']);
      expect(graded.stderr).toContain(`task strength: median ${Math.round((clamp?.strength ?? 0) * 100)}% over 1 task; weakest: clamp`);
      // The snapshot the reports read sits beside the run's manifest without breaking it.
      const verified = await runCli(['manifest', 'verify', join(out, 'runs', gradedRun.runId)]);
      expect(verified.status, verified.stdout + verified.stderr).toBe(0);

      // Same task content: every mutant's outcome comes from the cache, no mutant runs again.
      const again = await runCli(args, { attempts: 4 });
      expect(again.status, again.stderr).toBe(0);
      const second = JSON.parse(again.stdout) as StrengthReport;
      const strip = (t: TaskStrength | undefined): unknown => ({ ...t, flake: undefined });
      expect(strip(second.strength[0])).toEqual(strip(clamp));
      const plan = JSON.parse(readFileSync(join(second.dir, 'plan.json'), 'utf8')) as { attempts: Array<{ agent: string }> };
      expect(plan.attempts.map((a) => a.agent).sort()).toEqual(['nop', 'nop', 'oracle', 'oracle']);
    },
    attemptBudget(ATTEMPTS + 5),
  );

  it('refuses its flags without --strength, naming the fix', async () => {
    const result = await runCli(['validate', weakTaskSet(), '--max-mutants', '3', '--out', tempDir()]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--max-mutants: only with --strength (fix: add --strength)');
  });
});
