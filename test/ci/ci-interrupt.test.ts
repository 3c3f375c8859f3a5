import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { captureIo } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

describe('crucible ci interrupted', () => {
  it('kills the running test command on Ctrl-C, exits 130 and writes or records nothing', async () => {
    const root = tempDir();
    const repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'value.txt'), 'base\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'base');
    writeFileSync(join(repo, 'value.txt'), 'changed\n');
    // The local sandbox lets the command mark that it started; then it would run for ten minutes.
    const started = join(root, 'started');
    const out = join(root, 'state');

    const captured = captureIo({ cwd: repo });
    const running = createProgram(captured.io).run(['ci', '--sandbox', 'local', '--test-command', `touch ${started}; exec sleep 600`, '--out', out]);
    while (!existsSync(started)) await sleep(20);
    captured.signals.send('SIGINT');

    expect(await running, captured.stderr()).toBe(130);
    expect(captured.stderr()).toContain('interrupted: nothing was written or recorded');
    expect(captured.signals.listening()).toBe(0);
    const ciDir = join(out, 'ci');
    expect(existsSync(ciDir) ? readdirSync(ciDir) : []).toEqual([]);
    expect(existsSync(join(out, 'history.db'))).toBe(false);
  });
});
