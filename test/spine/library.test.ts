import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun } from '../../src/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('Crucible as a library', () => {
  it('loads a task set, runs a plan and reads it back from the history through the public entry', async () => {
    const stateDir = tempDir();
    const taskSet = loadTaskSet('examples/tasks.yaml');
    const tasks = taskSet.tasks.filter((t) => t.id === 'js-slugify');
    const outcome = await executeRun({
      taskSetFile: 'examples/tasks.yaml',
      tasks,
      agents: ['oracle', 'nop'],
      trials: 1,
      stateDir,
      settings: { sandbox: 'bwrap' },
    });
    expect(outcome.attempts.map((a) => `${a.agent}:${a.verdict}:${a.cause}`)).toEqual(['oracle:PASS:passed', 'nop:FAIL:no_changes']);
    expect(outcome.summary.stats?.comparisons[0]?.tasks).toBe(1);

    const summary = JSON.parse(readFileSync(join(outcome.runDir, 'summary.json'), 'utf8')) as { runId: string };
    expect(summary.runId).toBe(outcome.summary.runId);
    const history = openHistory(join(stateDir, 'history.db'), { readonly: true });
    try {
      expect(history.listAttempts({ runId: summary.runId, limit: 10 }).items.map((a) => a.agent)).toEqual(['oracle', 'nop']);
    } finally {
      history.close();
    }
  });
});
