import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { captureIo } from '../helpers/cli.js';
import { git } from '../helpers/git.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
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
