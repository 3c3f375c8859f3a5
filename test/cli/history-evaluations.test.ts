import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHistory, type EvaluationRecord } from '../../src/infra/store/index.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function record(id: string, kind: 'ci' | 'gate', createdAt: string, verdict: 'PASS' | 'FAIL', title: string): EvaluationRecord {
  return {
    id,
    kind,
    createdAt,
    verdict,
    title,
    reportDir: `/work/repo/.crucible/${kind === 'ci' ? 'ci' : 'gates'}/${id}`,
    detail: { id, big: 'x'.repeat(100) },
    ...(kind === 'gate' ? { runId: 'run-1' } : {}),
  };
}

/** A state directory whose history holds a run and three evaluations, as ci and gate leave it. */
function stateWithEvaluations(): string {
  const dir = tempDir();
  const history = openHistory(join(dir, '.crucible', 'history.db'));
  history.recordRun({ runId: 'run-1', taskSet: 'tasks.yaml', createdAt: '2026-11-30T08:00:00.000Z', planned: 1, agents: ['oracle'] });
  history.recordEvaluation(record('ci-aaa', 'ci', '2026-11-30T09:00:00.000Z', 'FAIL', 'main..pr: tampered (test/add.test.js)'));
  history.recordEvaluation(record('gate-bbb', 'gate', '2026-11-30T10:00:00.000Z', 'PASS', 'tasks.yaml vs baselines/main.json: no regression'));
  history.recordEvaluation(record('ci-ccc', 'ci', '2026-11-30T11:00:00.000Z', 'PASS', 'main..pr2: passed'));
  history.close();
  return dir;
}

describe('crucible history --evaluations / --kind', () => {
  it('lists ci and gate results newest first, with id, kind, verdict, title, time and report dir', async () => {
    const dir = stateWithEvaluations();
    const r = await runCli(['history', '--evaluations'], { cwd: dir });
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/finished\s+id\s+kind\s+result\s+title\s+report/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[2])).toEqual(['ci-ccc', 'gate-bbb', 'ci-aaa']);
    expect(r.stdout).toContain('main..pr: tampered (test/add.test.js)');
    expect(r.stdout).toContain('/work/repo/.crucible/gates/gate-bbb');
    expect(r.stdout).toContain('2026-11-30 09:00');
  });

  it('--kind filters, --limit limits, --json prints the records without their detail', async () => {
    const dir = stateWithEvaluations();
    const gates = JSON.parse((await runCli(['history', '--kind', 'gate', '--json'], { cwd: dir })).stdout) as Record<string, unknown>[];
    expect(gates).toEqual([
      {
        id: 'gate-bbb',
        kind: 'gate',
        createdAt: '2026-11-30T10:00:00.000Z',
        verdict: 'PASS',
        title: 'tasks.yaml vs baselines/main.json: no regression',
        runId: 'run-1',
        reportDir: '/work/repo/.crucible/gates/gate-bbb',
      },
    ]);
    const ci = JSON.parse((await runCli(['history', '--kind', 'ci', '--limit', '1', '--json'], { cwd: dir })).stdout) as { id: string }[];
    expect(ci.map((e) => e.id)).toEqual(['ci-ccc']);
    const csv = (await runCli(['history', '--evaluations', '--csv'], { cwd: dir })).stdout.trim().split('\n');
    expect(csv[0]).toBe('id,kind,createdAt,verdict,title,runId,reportDir');
    expect(csv).toHaveLength(4);
  });

  it('runs and attempts listings are unchanged next to them', async () => {
    const dir = stateWithEvaluations();
    const runs = JSON.parse((await runCli(['history', '--runs', '--json'], { cwd: dir })).stdout) as { runId: string }[];
    expect(runs.map((r) => r.runId)).toEqual(['run-1']);
  });

  it('refuses a bad kind and filters that do not apply, exit 2 with the fix', async () => {
    const dir = stateWithEvaluations();
    const bad = await runCli(['history', '--kind', 'run'], { cwd: dir });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--kind run: expected ci or gate \(fix:/);
    const mixed = await runCli(['history', '--evaluations', '--agent', 'oracle'], { cwd: dir });
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/--agent filters runs and attempts \(fix: drop --agent/);
    const runs = await runCli(['history', '--kind', 'ci', '--runs'], { cwd: dir });
    expect(runs.status).toBe(2);
    expect(runs.stderr).toMatch(/--runs lists runs \(fix: drop --runs or --evaluations\/--kind\)/);
  });

  it('no history yet: an empty JSON list', async () => {
    const r = await runCli(['history', '--evaluations', '--json'], { cwd: tempDir() });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});
