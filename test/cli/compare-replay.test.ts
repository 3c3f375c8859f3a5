import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun } from '../../src/engine/index.js';
import type { ModelRunOptions } from '../../src/engine/gateway-lifecycle.js';
import { startScriptedUpstream } from '../../scripts/scripted-upstream.mjs';
import { stripAnsi } from '../../src/cli/format.js';
import { formatUsageTable } from '../../src/cli/model-run.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const TASKS = resolve('examples/tasks.yaml');
const MODEL = 'openai:gpt-4.1-mini';
const TASK_IDS = ['js-slugify', 'js-sortby', 'py-median'];

describe('crucible compare of a recorded run and its replay', () => {
  it(
    'shows every task the same (the base URL and the record/replay mode are not part of a task); show prints the usage table run printed',
    async () => {
      const upstream = await startScriptedUpstream();
      const tasks = loadTaskSet(TASKS).tasks.filter((t) => TASK_IDS.includes(t.id));
      const stateDir = tempDir();
      const cassettes = tempDir();
      const run = (models: ModelRunOptions) =>
        executeRun({ taskSetFile: TASKS, tasks, agents: [MODEL], trials: 1, stateDir, settings: { sandbox: 'local' }, models });
      let recorded: string;
      try {
        // Recording reaches the scripted upstream through --base-url; the replay has no base URL at all.
        recorded = (await run({ mode: 'record', cassetteDir: cassettes, baseUrl: upstream.baseUrl, env: { OPENAI_API_KEY: 'scripted-upstream-ignores-keys' } }))
          .summary.runId;
      } finally {
        await upstream.close();
      }
      const replay = await run({ mode: 'replay', cassetteDir: cassettes, env: {} });
      const replayed = replay.summary.runId;

      const result = await runCli(['compare', recorded, replayed, '--out', stateDir, '--json']);
      expect(result.status, result.stderr).toBe(0);
      const comparison = JSON.parse(result.stdout) as { cells: Array<{ taskId: string; change: string }>; notes: string[] };
      expect(comparison.cells.map((c) => [c.taskId, c.change])).toEqual(TASK_IDS.map((id) => [id, 'same']));
      expect(comparison.notes).toEqual([]);

      const text = await runCli(['compare', recorded, replayed, '--out', stateDir]);
      expect(text.status, text.stderr).toBe(0);
      expect(text.stdout).not.toMatch(/differs? between the runs/);
      expect(text.stdout).toMatch(/no cell got worse/);

      // `show` prints the usage table `run` printed at its end, from the history.
      const usage = stripAnsi(formatUsageTable(replay.attempts) ?? '');
      expect(usage).toMatch(/cache read/);
      const shown = await runCli(['show', replayed, '--out', stateDir]);
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(usage);
    },
    attemptBudget(2 * TASK_IDS.length),
  );
});
