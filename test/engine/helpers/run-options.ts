import { join } from 'node:path';
import type { RunOptions } from '../../../src/engine/index.js';
import { fakeAgent, fakeRunner, fakeTasks } from './fake-run.mjs';

/** A run of the fake runner over 3 tasks × agents good and bad × 2 trials in `dir`; `overrides` replace any of it. */
export function fakeRunOptions(dir: string, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    taskSetFile: 'tasks.yaml',
    taskSetPath: join(dir, 'tasks.yaml'),
    tasks: fakeTasks(dir, 3),
    agents: ['good', 'bad'],
    trials: 2,
    stateDir: join(dir, '.crucible'),
    settings: { sandbox: 'local' },
    concurrency: 2,
    runAttempt: fakeRunner(),
    resolveAgent: fakeAgent,
    ...overrides,
  };
}
