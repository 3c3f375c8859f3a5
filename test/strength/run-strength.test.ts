import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runViewOf } from '../../src/features/report/data.js';
import { renderMarkdown } from '../../src/features/report/markdown.js';
import { snapshotForRun, taskKey, type StrengthFile } from '../../src/features/strength/index.js';
import type { Task } from '../../src/core/types/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { sampleAttempts, summaryOf } from '../report/fixtures.js';
import { useTempDirs } from '../helpers/tmp.js';
import { strengthEntry as entry } from './fixtures.js';

const tempDir = useTempDirs();

describe('a run beside its task set strength', () => {
  it('takes the entries whose task content still matches, and its report.md puts them beside the pass rates', async () => {
    const tasks: Task[] = loadTaskSet('examples/tasks.yaml').tasks.filter((t) => t.id === 'py-median' || t.id === 'js-slugify');
    const state = tempDir();
    const median = tasks.find((t) => t.id === 'py-median') as Task;
    const file: StrengthFile = {
      schemaVersion: 1,
      tasks: [entry('py-median', await taskKey(median), 0.5, 5), entry('js-slugify', 'a-key-of-other-content', 0.1, 9), entry('not-in-run', 'k', 0, 10)],
    };
    writeFileSync(join(state, 'strength.json'), JSON.stringify(file));
    const runDir = join(state, 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });

    const summary = await snapshotForRun(state, tasks, runDir);
    // js-slugify's entry was measured on other content: it is left out, not shown as this task's.
    expect(summary).toMatchObject({ measured: 1, median: 0.5, weakest: [{ taskId: 'py-median', strength: 0.5, survivors: 5 }] });

    const attempts = sampleAttempts();
    const md = renderMarkdown(runViewOf({ runDir, summary: summaryOf(attempts), attempts }), attempts);
    expect(md).toContain('**Task strength:** median 50% over 1 task; weakest: py-median 50% (5 surviving)');
  });

  it('shows nothing for a run whose tasks were never measured', async () => {
    const state = tempDir();
    expect(await snapshotForRun(state, loadTaskSet('examples/tasks.yaml').tasks, join(state, 'r'))).toBeUndefined();
    const attempts = sampleAttempts();
    expect(renderMarkdown(runViewOf({ runDir: join(state, 'r'), summary: summaryOf(attempts), attempts }), attempts)).not.toContain('Task strength');
  });
});
