import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executeRun, type RunOptions } from '../../src/engine/index.js';
import { CassetteWriter, cassettePath } from '../../src/infra/gateway/cassette.js';
import { useTempDirs } from '../helpers/tmp.js';
import { fakeRunner, fakeTasks } from './helpers/fake-run.mjs';

const tempDir = useTempDirs();
const MODEL = 'openai:gpt-4.1-mini';

/** The built-in agent on a model, replayed from `cassettes`; the fake runner stands in for the attempts. */
function replayRun(dir: string, cassettes: string, started: string[], overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    taskSetFile: 'tasks.yaml',
    taskSetPath: join(dir, 'tasks.yaml'),
    tasks: fakeTasks(dir, 2),
    agents: [MODEL],
    trials: 2,
    stateDir: join(dir, '.crucible'),
    settings: { sandbox: 'local' },
    concurrency: 1,
    runAttempt: fakeRunner({ onStart: (p: { taskId: string; trial: number }) => started.push(`${p.taskId}/${p.trial}`) }),
    models: { mode: 'replay', cassetteDir: cassettes, env: {} },
    ...overrides,
  };
}

describe('a replay checks its recordings before any attempt', () => {
  it('on resume, checks the attempts it will run and names the one whose recording is gone', async () => {
    const dir = tempDir();
    const cassettes = tempDir();
    const keys = ['task-0', 'task-1'].flatMap((task) => [0, 1].map((trial) => `${task}/${MODEL}/${trial}`));
    for (const key of keys) new CassetteWriter(cassettePath(cassettes, key), key, () => []);
    const started: string[] = [];
    const first = await executeRun(replayRun(dir, cassettes, started));
    expect(first.summary.executed).toBe(4);

    // As if the run had been killed before its last attempt finished, and that recording then lost.
    const checkpoint = join(first.runDir, 'checkpoint.jsonl');
    const lines = readFileSync(checkpoint, 'utf8').trimEnd().split('\n');
    writeFileSync(checkpoint, `${lines.slice(0, -1).join('\n')}\n`);
    const lost = JSON.parse(lines.at(-1) as string) as { attemptId: string };
    const lostAttempt = first.attempts.find((a) => a.attemptId === lost.attemptId);
    const lostKey = `${lostAttempt?.taskId}/${MODEL}/${lostAttempt?.trial}`;
    rmSync(cassettePath(cassettes, lostKey));

    started.length = 0;
    await expect(executeRun(replayRun(dir, cassettes, started, { resume: { runId: first.summary.runId } }))).rejects.toThrow(
      `models.cassetteDir ${cassettes}: no recording for 1 of the 1 planned model attempt(s): ${lostKey}`,
    );
    expect(started).toEqual([]);

    // With the recording back, the resume runs just that attempt.
    new CassetteWriter(cassettePath(cassettes, lostKey), lostKey, () => []);
    const resumed = await executeRun(replayRun(dir, cassettes, started, { resume: { runId: first.summary.runId } }));
    expect(started).toEqual([`${lostAttempt?.taskId}/${lostAttempt?.trial}`]);
    expect(resumed.summary.reused).toBe(3);
  });
});
