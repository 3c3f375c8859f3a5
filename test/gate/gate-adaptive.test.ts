import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/features/gate/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';

/** The examples' two quickest tasks: an oracle baseline, then adaptive gates of nop and of oracle itself. */
describe('crucible gate --adaptive (in-process, examples, oracle/nop)', () => {
  let dir: string;
  const tasks = ['--task', 'js-slugify', '--task', 'js-sortby'];
  const gate = (...args: string[]) =>
    runCli(['gate', 'examples/tasks.yaml', '--baseline', 'base.json', '--sandbox', 'local', '-q', '--json', ...args], {
      cwd: dir,
      env: { GITHUB_STEP_SUMMARY: undefined },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crucible-gate-adaptive-'));
    cpSync(resolve('examples'), join(dir, 'examples'), { recursive: true });
    const run = await runCli(['run', 'examples/tasks.yaml', '--agent', 'oracle', ...tasks, '--sandbox', 'local', '--json', '-q'], { cwd: dir });
    expect(run.status, run.stderr).toBe(0);
    const saved = await runCli(['baseline', 'save', (JSON.parse(run.stdout) as { runId: string }).runId, '--out', 'base.json'], { cwd: dir });
    expect(saved.status, saved.stderr).toBe(0);
  }, attemptBudget(2));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'decides fail for nop by the anytime test, well inside the budget, and says so; gate --run of the run gives the same verdict',
    async () => {
      const out = await gate('--agent', 'nop', '--adaptive', '--max-attempts', '30');
      expect(out.status, out.stderr).toBe(1);
      const report = JSON.parse(out.stdout) as GateReport;
      expect(report.verdict).toBe('FAIL');
      expect(report.adaptive).toMatchObject({ stopped: 'target met', alpha: 0.05, maxDrop: 0 });
      const nop = report.adaptive?.agents[0];
      expect(nop).toMatchObject({ agent: 'nop', decision: 'fail', decidedBy: 'anytime test', baselineRate: 1, reference: 1 });
      expect(nop?.eForFail).toBeGreaterThanOrEqual(20);
      expect(nop?.steps).toBeLessThan(30);
      expect(report.failures).toEqual([expect.stringMatching(/^nop: adaptive: decided fail: pass rate below 100\.0%/)]);
      expect(readFileSync(join(report.reportDir, 'gate.md'), 'utf8')).toContain('nop decided fail by the anytime test');

      // The test is replayed from the run's attempts: judging the finished run again decides the same.
      const again = await gate('--run', report.runId);
      expect(again.status, again.stderr).toBe(1);
      expect((JSON.parse(again.stdout) as GateReport).adaptive?.agents).toEqual(report.adaptive?.agents);
    },
    attemptBudget(30),
  );

  it(
    'with the budget spent undecided, the ordinary fixed-sample gate decides, stated as such',
    async () => {
      // Baseline 100% and no margin: oracle sits exactly on the reference, where no budget can decide pass.
      const out = await gate('--agent', 'oracle', '--adaptive', '--max-attempts', '16');
      expect(out.status, out.stderr).toBe(0);
      const report = JSON.parse(out.stdout) as GateReport;
      expect(report.verdict).toBe('PASS');
      expect(report.adaptive?.stopped).toMatch(/^(budget spent|futile)$/);
      expect(report.adaptive?.agents[0]).toMatchObject({ agent: 'oracle', decision: 'open', decidedBy: 'fixed gate' });
      expect(report.notes).toContainEqual(
        expect.stringMatching(/^oracle: the anytime test did not decide .*; the ordinary fixed-sample gate decided, on the attempts that ran$/),
      );
    },
    attemptBudget(16),
  );

  it('rejects a budget flag without --adaptive, and --adaptive without a budget or with --run, with exit 2', async () => {
    const stray = await gate('--max-attempts', '10');
    expect(stray.status).toBe(2);
    expect(stray.stderr).toMatch(/--max-attempts only applies with --adaptive \(fix: add --adaptive, or drop --max-attempts\)/);
    const unbudgeted = await gate('--adaptive');
    expect(unbudgeted.status).toBe(2);
    expect(unbudgeted.stderr).toMatch(/gate --adaptive needs a budget \(fix: add --max-attempts/);
    const withRun = await gate('--adaptive', '--max-attempts', '5', '--run', 'x');
    expect(withRun.status).toBe(2);
    expect(withRun.stderr).toMatch(/with --run nothing runs/);
    const tooFew = await gate('--adaptive', '--max-attempts', '2');
    expect(tooFew.status).toBe(2);
    expect(tooFew.stderr).toMatch(/--max-attempts 2: too few for the anytime test to decide at --alpha 0\.05 .*\(fix: raise --max-attempts/);
    const alpha = await gate('--adaptive', '--max-attempts', '5', '--alpha', '2');
    expect(alpha.status).toBe(2);
    expect(alpha.stderr).toMatch(/--alpha 2: expected a number between 0 and 1/);
  });
});
