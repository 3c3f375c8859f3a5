import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCheckpoint, type RunSummaryFile } from '../../src/engine/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const ENGINE = resolve('dist/engine/index.js');
const DRIVER = resolve('test/engine/helpers/kill-driver.mjs');
/** 4 tasks × 2 agents × 4 trials, as the driver plans them. */
const PLANNED = 32;

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Starts the driver and SIGKILLs it after `killAfterMs` unless it finished first. */
function runDriver(dir: string, runId: string, mode: 'start' | 'resume', killAfterMs: number): Promise<Child> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [DRIVER, ENGINE, dir, runId, mode], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stderr });
    });
  });
}

/** What must hold after any crash: every checkpointed attempt has exactly the attempt.json it vouches for, once. */
async function expectConsistent(runDir: string): Promise<number> {
  const { entries, duplicates } = await readCheckpoint(runDir);
  expect(duplicates).toBe(0);
  for (const e of entries) {
    const bytes = readFileSync(join(runDir, 'attempts', e.attemptId, 'attempt.json'));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(e.sha256);
  }
  return entries.length;
}

describe('SIGKILL at random moments, then resume', () => {
  it('loses and duplicates nothing', async () => {
    if (!existsSync(ENGINE)) throw new Error('dist/engine/index.js is missing: run `npm run build` first');
    let kills = 0;
    // New runs until a dozen kills have landed (a fast machine finishes more rounds before the kill).
    for (let scenario = 0; kills < 12 && scenario < 10; scenario++) {
      const dir = tempDir();
      const runId = `kill-${scenario}`;
      const runDir = join(dir, '.crucible', 'runs', runId);
      let mode: 'start' | 'resume' = 'start';
      let finished = false;
      let checkpointed = 0;
      for (let round = 0; round < 8 && !finished; round++) {
        // Kill times spread over start-up (plan, lock, history), the attempts and the summary;
        // the last round runs unkilled, so every scenario ends with a resume that completes.
        const killAfter = round < 7 ? 40 + Math.random() * 460 : 60_000;
        const child = await runDriver(dir, runId, mode, killAfter);
        if (child.signal === 'SIGKILL') {
          kills++;
          if (existsSync(join(runDir, 'plan.json'))) mode = 'resume';
          if (existsSync(runDir)) {
            const now = await expectConsistent(runDir);
            expect(now).toBeLessThanOrEqual(PLANNED);
            // A kill never takes back an attempt that was already checkpointed.
            expect(now).toBeGreaterThanOrEqual(checkpointed);
            checkpointed = now;
          }
        } else {
          expect(child.stderr, child.stderr).toBe('');
          expect(child.code).toBe(0);
          finished = true;
        }
      }
      expect(finished).toBe(true);

      expect(await expectConsistent(runDir)).toBe(PLANNED);
      const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummaryFile;
      expect(summary.executed).toBe(PLANNED);
      expect(new Set(summary.attempts.map((a) => a.attemptId)).size).toBe(PLANNED);
      expect(summary.counts).toEqual({ PASS: 16, FAIL: 16, ERROR: 0 });
      expect(readdirSync(join(runDir, 'attempts'))).toHaveLength(PLANNED);
      const history = openHistory(join(dir, '.crucible', 'history.db'), { readonly: true });
      try {
        expect(history.countAttempts({ runId })).toBe(PLANNED);
        expect(history.getRun(runId)?.finishedAt).not.toBeNull();
      } finally {
        history.close();
      }
    }
    // The point of the test is the kills; make sure it really killed something.
    expect(kills).toBeGreaterThanOrEqual(12);
  }, 120_000);
});
