import { mkdir, rename, writeFile } from 'node:fs/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { showCommand } from '../../src/cli/commands/show.js';
import { captureIo } from '../helpers/cli.js';
import { executeRun, type AttemptRunner, type RunOutcome } from '../../src/engine/index.js';
import { attemptRowsOf, runViewOf, taskRepoOfRows, type CellView, type Page, type RunView } from '../../src/features/report/index.js';
import { createApp } from '../../src/server/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import type { AttemptResult, RunStats } from '../../src/core/types/index.js';
import { fakeAgent, fakeTasks } from '../engine/helpers/fake-run.mjs';
import { useTempDirs } from '../helpers/tmp.js';
import { sampleAttempts } from './fixtures.js';

const tempDir = useTempDirs();

/**
 * Attempts shaped like the sample ones (usage and cost, a harness error, a policy violation,
 * informational held-out tests that failed), so every part of the statistics has something to count.
 */
const sampleRunner: AttemptRunner = async (plan, _task, _agent, env) => {
  const samples = sampleAttempts();
  const template = samples[plan.index % samples.length] as AttemptResult;
  const result: AttemptResult = { ...template, ...plan, sandbox: env.sandbox };
  const dir = join(env.runDir, 'attempts', plan.attemptId);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'attempt.json.tmp'), JSON.stringify(result));
  await rename(join(dir, 'attempt.json.tmp'), join(dir, 'attempt.json'));
  return result;
};

async function runOnce(dir: string): Promise<{ stateDir: string; outcome: RunOutcome }> {
  const stateDir = join(dir, '.crucible');
  const outcome = await executeRun({
    taskSetFile: 'tasks.yaml',
    taskSetPath: join(dir, 'tasks.yaml'),
    tasks: fakeTasks(dir, 3),
    agents: ['good', 'bad'],
    trials: 3,
    stateDir,
    settings: { sandbox: 'local' },
    concurrency: 2,
    runAttempt: sampleRunner,
    resolveAgent: fakeAgent,
  });
  return { stateDir, outcome };
}

async function showJsonStats(stateDir: string, runId: string): Promise<RunStats> {
  const captured = captureIo();
  await showCommand(runId, { json: true, out: stateDir }, captured.io);
  return (JSON.parse(captured.stdout()) as { stats: RunStats }).stats;
}

/** The dashboard's run page sends its stats without cells and the cells a page of tasks at a time: put back together. */
async function serverStats(stateDir: string, runId: string): Promise<RunStats | null> {
  const web = join(stateDir, 'web');
  mkdirSync(web, { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html>');
  const history = openHistory(join(stateDir, 'history.db'), { readonly: true });
  try {
    const app = createApp({ stateDir, history, webDir: web });
    const res = await app.request(`http://localhost/api/runs/${runId}`);
    expect(res.status).toBe(200);
    const stats = ((await res.json()) as RunView).stats;
    expect(stats?.cells).toEqual([]);
    const cells = (await (await app.request(`http://localhost/api/runs/${runId}/cells?limit=200`)).json()) as Page<CellView>;
    expect(cells.nextCursor).toBeNull();
    return stats && { ...stats, cells: cells.items as unknown as RunStats['cells'] };
  } finally {
    history.close();
  }
}

/** The run's history copied into another state directory as a killed run leaves it: attempts recorded, never finished. */
function recordKilledCopy(from: string, to: string, outcome: RunOutcome): void {
  const source = openHistory(join(from, 'history.db'), { readonly: true });
  const target = openHistory(join(to, 'history.db'));
  try {
    const run = outcome.summary;
    target.recordRun({ runId: run.runId, taskSet: run.taskSet, createdAt: run.createdAt, planned: run.planned, agents: ['good', 'bad'] });
    const rows = attemptRowsOf(source, run.runId);
    target.recordAttempts(
      run.runId,
      rows.map((r) => ({ attempt: source.getAttempt(r.attemptId)?.attempt as AttemptResult, extra: r.repoKey ? { repoKey: r.repoKey } : {} })),
    );
  } finally {
    source.close();
    target.close();
  }
}

/** The stats as the dashboard's cell pages give them: each cell's counts, in task order. */
function withCellCounts(stats: RunStats): RunStats {
  const cells = stats.cells
    .map((c) => ({ agent: c.agent, taskId: c.taskId, n: c.n, passes: c.passes, harnessErrors: c.harnessErrors }))
    .sort((x, y) => (x.taskId === y.taskId ? (x.agent < y.agent ? -1 : 1) : x.taskId < y.taskId ? -1 : 1));
  return { ...stats, cells: cells as unknown as RunStats['cells'] };
}

describe('one run, one set of statistics', () => {
  afterEach(() => vi.restoreAllMocks());

  it('run summary, show --json, the dashboard API and the report agree, stored or recomputed', async () => {
    const dir = tempDir();
    const { stateDir, outcome } = await runOnce(dir);
    const runId = outcome.summary.runId;
    const expected = outcome.summary.stats;
    // The sample attempts exercise the parts that need the full records: overfitting, cost, repos.
    expect(expected.agents.some((a) => a.overfitting !== undefined)).toBe(true);
    expect(expected.agents.some((a) => a.costUsd.stats !== null)).toBe(true);
    expect(expected.ks).toEqual([1, 3]);

    expect(await showJsonStats(stateDir, runId)).toEqual(expected);
    expect(await serverStats(stateDir, runId)).toEqual(withCellCounts(expected));

    const history = openHistory(join(stateDir, 'history.db'), { readonly: true });
    const taskRepo = taskRepoOfRows(attemptRowsOf(history, runId));
    history.close();
    // A report built without the engine's stats computes them itself, by the same rule.
    const report = runViewOf({ runDir: outcome.runDir, summary: outcome.summary, attempts: outcome.attempts, taskRepo });
    expect(report.stats).toEqual(expected);

    // Killed before it finished: nothing stored, so show and the dashboard compute the stats themselves.
    const killed = join(tempDir(), '.crucible');
    mkdirSync(killed, { recursive: true });
    recordKilledCopy(stateDir, killed, outcome);
    expect(await showJsonStats(killed, runId)).toEqual(expected);
    expect(await serverStats(killed, runId)).toEqual(withCellCounts(expected));
  });
});
