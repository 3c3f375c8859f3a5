import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BaselineFile } from '../../src/features/baseline/index.js';
import type { GateReport } from '../../src/features/gate/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { tinyTaskSet } from '../cli/fixtures.js';

/**
 * The whole loop a team runs in CI, on the tiny task set (6 tasks, one trial each, local sandbox; six tasks is the fewest a 95% sign-flip test can separate): an oracle run
 * saved as a baseline, then gates of nop (worse), oracle (the same) and an edited task.
 */
describe('crucible baseline save / show and crucible gate', () => {
  let dir: string;
  let oracleRun: string;
  let nopRun: string;
  const gate = (attempts: number, ...args: string[]) =>
    runCli(['gate', 'tasks.yaml', '--baseline', 'baselines/main.json', '--sandbox', 'local', ...args], {
      cwd: dir,
      attempts,
      env: { GITHUB_STEP_SUMMARY: undefined },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crucible-gate-'));
    tinyTaskSet(dir, 6);
    const oracle = await runCli(['run', 'tasks.yaml', '--agent', 'oracle', '--runs', '1', '--sandbox', 'local', '--json', '-q'], { cwd: dir, attempts: 6 });
    expect(oracle.status, oracle.stderr).toBe(0);
    oracleRun = (JSON.parse(oracle.stdout) as { runId: string }).runId;
    const nop = await runCli(['run', 'tasks.yaml', '--agent', 'nop', '--runs', '1', '--sandbox', 'local', '--json', '-q'], { cwd: dir, attempts: 6 });
    expect(nop.status, nop.stderr).toBe(1);
    nopRun = (JSON.parse(nop.stdout) as { runId: string }).runId;
    const saved = await runCli(['baseline', 'save', oracleRun, '--out', 'baselines/main.json'], { cwd: dir });
    expect(saved.status, saved.stderr).toBe(0);
  }, attemptBudget(12));
  afterAll(async () => rmSync(dir, { recursive: true, force: true }));

  it('saves a versioned, sorted, relative baseline; saving again differs only in createdAt', async () => {
    const text = readFileSync(join(dir, 'baselines/main.json'), 'utf8');
    const b = JSON.parse(text) as BaselineFile;
    expect(b).toMatchObject({ version: 1, sourceRun: oracleRun, taskSet: '../tasks.yaml', trials: 1 });
    expect(b.entries.map((e) => [e.taskId, e.agent.spec, e.attempts.length])).toEqual([
      ['t1', 'oracle', 1],
      ['t2', 'oracle', 1],
      ['t3', 'oracle', 1],
      ['t4', 'oracle', 1],
      ['t5', 'oracle', 1],
      ['t6', 'oracle', 1],
    ]);
    expect(b.entries[0]?.attempts[0]).toEqual({ trial: 0, verdict: 'PASS', cause: 'passed', failedChecks: [] });
    expect(text).not.toContain(dir);
    expect(text).not.toContain(tmpdir());
    // Keys sorted at every level.
    expect(Object.keys(b)).toEqual([...Object.keys(b)].sort());
    expect(Object.keys(b.entries[0] as object)).toEqual(['agent', 'attempts', 'taskId', 'taskVersion']);
    const again = await runCli(['baseline', 'save', oracleRun.slice(0, 17), '--out', 'again.json'], { cwd: dir });
    expect(again.status, again.stderr).toBe(0);
    const strip = (s: string) => s.replace(/"createdAt": "[^"]*"/, '').replace('"taskSet": "tasks.yaml"', '"taskSet": "../tasks.yaml"');
    expect(strip(readFileSync(join(dir, 'again.json'), 'utf8'))).toBe(strip(text));
  });

  it('shows a baseline as a table; a bad file is one line and exit 2', async () => {
    const shown = await runCli(['baseline', 'show', 'baselines/main.json'], { cwd: dir });
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`run ${oracleRun}`);
    expect(shown.stdout).toMatch(/oracle +t1 +1 +1\/1 +passed/);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ version: 1, createdAt: 'x', sourceRun: 'r', taskSet: 't', trials: 0, entries: [] }));
    const bad = await runCli(['baseline', 'show', 'bad.json'], { cwd: dir });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/bad\.json:1:\d+: trials: Too small: expected number to be >=1 \(fix: use a number ≥ 1\)/);
    writeFileSync(join(dir, 'old.json'), '{"version": 7}');
    const old = await runCli(['gate', 'tasks.yaml', '--baseline', 'old.json', '--run', nopRun], { cwd: dir });
    expect(old.status).toBe(2);
    expect(old.stderr).toMatch(/baseline old\.json: version 7 is not one this Crucible reads/);
    const missing = await runCli(['baseline', 'save', 'no-such-run', '--out', 'x.json'], { cwd: dir });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/run no-such-run: no such run in .*\(fix: use a run id, e\.g\. /);
    const elsewhere = await runCli(['baseline', 'save', oracleRun, '--out', 'x.json', '--state-dir', 'nowhere'], { cwd: dir });
    expect(elsewhere.status).toBe(2);
    expect(elsewhere.stderr).toMatch(/no runs in .*nowhere.*\(fix: pass --state-dir with the state directory the run used\)/);
  });

  it(
    'gate with nop against the oracle baseline exits 1 naming the regressed tasks and the paired interval',
    async () => {
      const r = await gate(6, '--agent', 'nop', '--json');
      expect(r.status, r.stderr).toBe(1);
      const report = JSON.parse(r.stdout) as GateReport;
      expect(report.verdict).toBe('FAIL');
      const [nop] = report.agents;
      expect(nop).toMatchObject({ agent: 'nop', baselineAgent: 'oracle', passRate: 0, baselinePassRate: 1, tasks: 6 });
      expect(nop?.regressedTasks.map((t) => t.taskId)).toEqual(['t1', 't2', 't3', 't4', 't5', 't6']);
      expect(nop?.comparison.diff).toBe(-1);
      expect(nop?.comparison).toMatchObject({ verdict: 'worse', method: 'exact sign-flip' });
      expect(nop?.comparison.high).toBeLessThan(0);
      expect(nop?.newlyFailedChecks.length).toBeGreaterThan(0);
      expect(report.failures.join('\n')).toMatch(/nop: max-regressed-tasks: 6 task\(s\) went PASS→FAIL \(t1 1\/1→0\/1, t2 1\/1→0\/1, .*\), at most 0 allowed/);
      // gate.json and gate.md are on disk under <out>/gates/<id>/.
      expect(JSON.parse(readFileSync(join(report.reportDir, 'gate.json'), 'utf8'))).toMatchObject({ id: report.id, verdict: 'FAIL' });
      expect(readFileSync(join(report.reportDir, 'gate.md'), 'utf8')).toMatch(/## Crucible gate: ❌ FAIL/);
    },
    attemptBudget(6),
  );

  it('the human verdict names the failed rule, the tasks and the interval in one screen', async () => {
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await runCli(['gate', 'tasks.yaml', '--baseline', 'baselines/main.json', '--run', nopRun], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^gate FAIL — run /);
    expect(r.stdout).toMatch(/FAILED nop: max-regressed-tasks: 6 task\(s\) went PASS→FAIL/);
    expect(r.stdout).toMatch(
      /paired change \(new − baseline\): −100\.0 pts, 95% interval \[−100\.0 pts, −\d+\.\d pts\], p 0\.031 \(exact sign-flip, 6 tasks\) → worse/,
    );
    expect(r.stdout).toMatch(/FAILED nop: max-drop: change −100\.0 pts, 95% interval \[−100\.0 pts, −\d+\.\d pts\], p 0\.031; worse beyond the allowed 0 pts/);
    expect(r.stdout).toMatch(/regressed \(PASS→FAIL\): t1 1\/1→0\/1, t2 1\/1→0\/1, t3 1\/1→0\/1, t4 1\/1→0\/1, t5 1\/1→0\/1, t6 1\/1→0\/1/);
    expect(r.stdout.split('\n').length).toBeLessThan(25);
    const appended = readFileSync(summary, 'utf8');
    expect(appended.startsWith('# earlier step\n')).toBe(true);
    expect(appended).toContain('## Crucible gate: ❌ FAIL');
    expect(appended).toMatch(/\| nop \| oracle \| 0\.0% \| 100\.0% \| −100\.0 pts \|/);
  });

  it(
    'gate of the oracle against itself exits 0, by running and with --run',
    async () => {
      const ran = await gate(6, '--json');
      expect(ran.status, ran.stderr).toBe(0);
      const report = JSON.parse(ran.stdout) as GateReport;
      expect(report).toMatchObject({ verdict: 'PASS', failures: [] });
      expect(report.agents[0]).toMatchObject({ agent: 'oracle', passRate: 1, regressedTasks: [], comparison: { diff: 0, verdict: 'not separated' } });
      expect(report.runId).not.toBe(oracleRun);
      const taken = await runCli(['gate', 'tasks.yaml', '--baseline', 'baselines/main.json', '--run', oracleRun], { cwd: dir });
      expect(taken.status, taken.stderr).toBe(0);
      expect(taken.stdout).toMatch(/^gate PASS — run /);
      expect(readdirSync(join(dir, '.crucible', 'gates')).length).toBeGreaterThanOrEqual(2);
      // Recorded in the history, next to the runs they judged.
      const listed = await runCli(['history', '--kind', 'gate', '--json'], { cwd: dir });
      expect(listed.status, listed.stderr).toBe(0);
      const rows = JSON.parse(listed.stdout) as Array<{ id: string; verdict: string; runId?: string }>;
      expect(rows.find((r) => r.id === report.id)).toMatchObject({ verdict: 'PASS', runId: report.runId });
      expect(taken.stderr).not.toContain('not recorded');
    },
    attemptBudget(6),
  );

  it('each threshold trips with its numbers, and loosening it passes', async () => {
    const judge = (...args: string[]) => runCli(['gate', 'tasks.yaml', '--baseline', 'baselines/main.json', '--run', nopRun, ...args], { cwd: dir });
    // Regressions tolerated: the paired drop alone fails the gate, with the interval and p.
    const drop = await judge('--max-regressed-tasks', '6');
    expect(drop.status).toBe(1);
    expect(drop.stdout).toMatch(
      /FAILED nop: max-drop: change −100\.0 pts, 95% interval \[−100\.0 pts, −\d+\.\d pts\], p 0\.031; worse beyond the allowed 0 pts/,
    );
    expect(drop.stdout).not.toMatch(/FAILED nop: max-regressed-tasks/);
    // Allowing a 100-point drop and the regressions passes; a success-rate floor then trips alone.
    expect((await judge('--max-regressed-tasks', '6', '--max-drop', '100')).status).toBe(0);
    const floor = await judge('--max-regressed-tasks', '6', '--max-drop', '100', '--min-success-rate', '50');
    expect(floor.status).toBe(1);
    expect(floor.stdout).toMatch(/FAILED nop: min-success-rate: pass rate 0\.0%, at least 50\.0% required/);
    expect(floor.stdout.match(/FAILED/g)).toHaveLength(1);
    // One regression more than allowed still fails, naming the count and the allowance.
    const five = await judge('--max-regressed-tasks', '5', '--max-drop', '100');
    expect(five.status).toBe(1);
    expect(five.stdout).toMatch(/FAILED nop: max-regressed-tasks: 6 task\(s\) went PASS→FAIL .*, at most 5 allowed/);
    const oracleFloor = await runCli(['gate', 'tasks.yaml', '--baseline', 'baselines/main.json', '--run', oracleRun, '--min-success-rate', '100'], {
      cwd: dir,
    });
    expect(oracleFloor.status, oracleFloor.stdout).toBe(0);
    const bad = await judge('--max-drop', 'lots');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--max-drop lots: expected a number from 0 to 100/);
  });

  it(
    'a task whose version changed exits 2 with the fix; --allow-version-mismatch proceeds and reports it',
    async () => {
      const edited = join(dir, 'edited');
      rmSync(edited, { recursive: true, force: true });
      tinyTaskSet(edited, 3);
      const file = join(edited, 'tasks.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('  - id: t2\n', '  - id: t2\n    version: "2"\n'));
      const args = ['gate', 'edited/tasks.yaml', '--baseline', 'baselines/main.json', '--sandbox', 'local'];
      const refused = await runCli(args, { cwd: dir });
      expect(refused.status).toBe(2);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(
        /task t2 \(baseline version "1", now "2"\) changed since baseline baselines\/main\.json was saved \(fix: .*crucible baseline save <run-id> --out baselines\/main\.json.*--allow-version-mismatch/,
      );
      const allowed = await runCli([...args, '--allow-version-mismatch', '--json', '-q'], { cwd: dir, attempts: 6 });
      expect(allowed.status, allowed.stderr).toBe(0);
      const report = JSON.parse(allowed.stdout) as GateReport;
      expect(report.versionMismatches).toEqual([{ taskId: 't2', baselineVersion: '1', currentVersion: '2' }]);
      expect(report.notes.join('\n')).toMatch(/task t2 changed \(baseline version "1", now "2"\): compared anyway/);
    },
    attemptBudget(6),
  );
});
