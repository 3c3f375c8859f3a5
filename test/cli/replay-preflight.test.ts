import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

/** The quick-start recording of js-slugify's trial 0, as the run looks it up. */
const SLUGIFY = join('js-slugify', encodeURIComponent(MODEL), '0.jsonl');

/** Each way a cassette is not a recording of the attempt it is found for: the file is replaced by `make(file, good)`. */
const HOSTILE: Array<{ name: string; make: (file: string, good: string) => void; says: RegExp }> = [
  { name: 'a FIFO', make: (file) => execFileSync('mkfifo', [file]), says: /not a regular file \(a FIFO\)/ },
  { name: 'a symlink to /dev/zero', make: (file) => symlinkSync('/dev/zero', file), says: /not a regular file \(a device\)/ },
  { name: 'a directory', make: (file) => execFileSync('mkdir', [file]), says: /not a regular file \(a directory\)/ },
  { name: 'empty', make: (file) => writeFileSync(file, ''), says: /empty cassette/ },
  { name: 'no header', make: (file, good) => writeFileSync(file, good.split('\n').slice(1).join('\n')), says: /:1: the first line is not a cassette header/ },
  { name: 'header version 99', make: (file, good) => writeFileSync(file, good.replace('"version":1', '"version":99')), says: /:1: cassette version 99/ },
  { name: 'a torn last line', make: (file, good) => writeFileSync(file, good.slice(0, good.length - 40)), says: /torn/ },
  { name: 'a torn line inside', make: (file, good) => writeFileSync(file, good.replace('"type":"exchange"', '"type":"exch')), says: /:2: not JSON/ },
  { name: 'not UTF-8', make: (file, good) => writeFileSync(file, Buffer.concat([Buffer.from(good), Buffer.from([0xff, 0x0a])])), says: /not UTF-8/ },
  {
    name: "another task's recording",
    make: (file, good) => writeFileSync(file, good.replace('"key":"js-slugify/', '"key":"py-median/')),
    says: /header's key is "py-median\/openai:gpt-4\.1-mini\/0", a recording of another attempt/,
  },
];

describe('--replay refuses a recording that is not one, before any setup', () => {
  it.each(HOSTILE)('$name: one line naming the file, exit 2, no run directory', async ({ make, says }) => {
    const out = tempDir();
    const cassettes = join(tempDir(), 'cassettes');
    cpSync(QUICKSTART, cassettes, { recursive: true });
    const file = join(cassettes, SLUGIFY);
    const good = readFileSync(file, 'utf8');
    rmSync(file);
    make(file, good);
    const r = await runCli(['run', TASKS, '--model', MODEL, '--replay', cassettes, '--task', 'js-slugify', '--out', out, '--sandbox', 'local'], {
      env: { OPENAI_API_KEY: undefined },
    });
    expect(r.status, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`error --replay ${cassettes}: ${file}`);
    expect(lines[0]).toMatch(says);
    expect(r.stdout).toBe('');
    expect(existsSync(join(out, 'runs')) ? readdirSync(join(out, 'runs')) : []).toEqual([]);
  });
});
