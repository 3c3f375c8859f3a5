import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const TASKS = resolve('examples/tasks.yaml');
const QUICKSTART = resolve('examples/cassettes/quickstart');
const MODEL = 'openai:gpt-4.1-mini';

describe('--replay is checked before any attempt', () => {
  it('names the missing recordings, how many, and the fix, in one line with exit 2, before any setup or run directory', async () => {
    const out = tempDir();
    // The quick-start recordings hold trial 0 only: trials 1 and 2 of both tasks are missing.
    const args = ['run', TASKS, '--model', MODEL, '--replay', QUICKSTART, '--task', 'js-slugify', '--task', 'py-median', '--runs', '3', '--out', out];
    const r = await runCli(args, { env: { OPENAI_API_KEY: undefined } });
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `error --replay ${QUICKSTART}: no recording for 4 of the 6 planned model attempt(s): ` +
        `js-slugify/${MODEL}/1, js-slugify/${MODEL}/2, py-median/${MODEL}/1, and 1 more ` +
        '(fix: record them first with --record into this directory (same tasks, agents and --runs), or pass the directory that holds their recordings)',
    );
    // Nothing started: no run directory, so no preflight and no setup ran.
    expect(existsSync(join(out, 'runs')) ? readdirSync(join(out, 'runs')) : []).toEqual([]);
  });

  it('lets a replay start when every planned attempt has its recording', async () => {
    const out = tempDir();
    const cassettes = join(tempDir(), 'cassettes');
    cpSync(QUICKSTART, cassettes, { recursive: true });
    const r = await runCli(['run', TASKS, '--model', MODEL, '--replay', cassettes, '--task', 'js-slugify', '--out', out, '--sandbox', 'local', '-q'], {
      env: { OPENAI_API_KEY: undefined },
      attempts: 1,
    });
    expect(r.status, r.stderr).toBe(0);
  });
});
