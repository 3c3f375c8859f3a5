import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunView } from '../../src/features/report/index.js';
import type { StrengthFile } from '../../src/features/strength/index.js';
import { createApp } from '../../src/server/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { RUN_ID, recordRun, sampleAttempts, writeRunDir } from '../report/fixtures.js';
import { strengthEntry } from '../strength/fixtures.js';

const tempDir = useTempDirs();

describe('the dashboard run page beside task strength', () => {
  it("serves the run's strength and the PASS whose diff adds a surviving mutant's line", async () => {
    const state = tempDir();
    const attempts = sampleAttempts();
    const runDir = writeRunDir(state, attempts);
    recordRun(state, attempts);
    const pass = attempts.find((a) => a.taskId === 'py-median' && a.verdict === 'PASS');
    expect(pass).toBeDefined();
    const entry = strengthEntry('py-median', 'k', 0.5, 1);
    const file: StrengthFile = {
      schemaVersion: 1,
      tasks: [{ ...entry, survivors: [{ ...(entry.survivors[0] as (typeof entry.survivors)[number]), file: 'median.py', after: 'return xs[mid + 1]' }] }],
    };
    writeFileSync(join(runDir, 'strength.json'), JSON.stringify(file));
    writeFileSync(
      join(runDir, 'attempts', pass?.attemptId as string, 'diff.patch'),
      ['diff --git a/median.py b/median.py', '--- a/median.py', '+++ b/median.py', '@@ -1,1 +1,2 @@', ' def median(xs):', '+    return xs[mid + 1]', ''].join(
        '\n',
      ),
    );
    const history = openHistory(join(state, 'history.db'), { readonly: true });
    try {
      const app = createApp({ stateDir: state, history, webDir: join(state, 'web'), allowedHosts: ['localhost'] });
      const res = await app.request(`http://localhost/api/runs/${RUN_ID}`);
      expect(res.status).toBe(200);
      const view = (await res.json()) as RunView;
      expect(view.strength).toMatchObject({ measured: 1, median: 0.5 });
      expect(view.resemblances).toEqual([
        expect.objectContaining({ attemptId: pass?.attemptId, taskId: 'py-median', mutants: [expect.objectContaining({ after: 'return xs[mid + 1]' })] }),
      ]);
    } finally {
      history.close();
    }
  });
});
