import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { git } from '../helpers/git.js';
import { useTempDirs } from '../helpers/tmp.js';
import { tinyTaskSet } from './fixtures.js';

const tempDir = useTempDirs();

/** Whether the process catches `signal`: its bit in the caught-signals mask of /proc/<pid>/status. */
function catches(pid: number, signal: number): boolean {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return mask !== undefined && (BigInt(`0x${mask}`) & (1n << BigInt(signal - 1))) !== 0n;
}

/**
 * Starts the built CLI and sends `signal` once `ready` says so (polled; the process's own state,
 * never a wall-clock guess), then returns its exit code and output.
 */
async function signalWhen(
  args: string[],
  cwd: string,
  signal: NodeJS.Signals,
  ready: (pid: number) => boolean,
): Promise<{ code: number | null; killedBy: NodeJS.Signals | null; stderr: string }> {
  if (!existsSync('dist/cli/main.js')) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.resume();
  const ended = new Promise<{ code: number | null; killedBy: NodeJS.Signals | null }>((done) => child.on('exit', (code, killedBy) => done({ code, killedBy })));
  const pid = child.pid as number;
  let exited = false;
  void ended.then(() => (exited = true));
  while (!exited && !ready(pid)) await sleep(5);
  if (!exited) child.kill(signal);
  return { ...(await ended), stderr };
}

/**
 * Node catches SIGINT and SIGTERM itself from its first instruction (to reset the terminal, then
 * die by the signal); SIGHUP only the CLI's own handlers catch, installed beside theirs first
 * thing. So a caught SIGHUP marks the moment the CLI took the signals over, before the program loads.
 */
const SIGHUP = 1;
const latched = (pid: number): boolean => catches(pid, SIGHUP);

function ciRepo(): { repo: string; out: string; started: string } {
  const root = tempDir();
  const repo = join(root, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'value.txt'), 'base\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'base');
  writeFileSync(join(repo, 'value.txt'), 'changed\n');
  return { repo, out: join(root, 'state'), started: join(root, 'started') };
}

describe('a signal at any moment of a long command gives exit 130', () => {
  it('crucible ci: SIGTERM as soon as the process catches it (before the program has loaded) exits 130, and nothing is written', async () => {
    const { repo, out, started } = ciRepo();
    const r = await signalWhen(['ci', '--sandbox', 'local', '--test-command', `touch ${started}; exec sleep 600`, '--out', out], repo, 'SIGTERM', latched);
    expect(r, r.stderr).toMatchObject({ code: 130, killedBy: null });
    expect(existsSync(join(out, 'ci')) ? readdirSync(join(out, 'ci')) : []).toEqual([]);
    expect(existsSync(join(out, 'history.db'))).toBe(false);
  });

  it('crucible ci: SIGTERM while its test command runs exits 130, and nothing is written', async () => {
    const { repo, out, started } = ciRepo();
    const r = await signalWhen(['ci', '--sandbox', 'local', '--test-command', `touch ${started}; exec sleep 600`, '--out', out], repo, 'SIGTERM', () =>
      existsSync(started),
    );
    expect(r, r.stderr).toMatchObject({ code: 130, killedBy: null });
    expect(r.stderr).toContain('interrupted: nothing was written or recorded');
    expect(existsSync(join(out, 'ci')) ? readdirSync(join(out, 'ci')) : []).toEqual([]);
  });

  it('crucible run: SIGINT as soon as the process catches it exits 130 and leaves no run behind', async () => {
    const dir = tempDir();
    tinyTaskSet(dir, 1);
    const r = await signalWhen(['run', 'tasks.yaml', '--agent', 'oracle', '--sandbox', 'local', '--out', 'state'], dir, 'SIGINT', latched);
    expect(r, r.stderr).toMatchObject({ code: 130, killedBy: null });
    expect(r.stderr).toContain('interrupted (SIGINT)');
    const runs = join(dir, 'state', 'runs');
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  });

  it('crucible run: SIGHUP while the run is checking its task exits 130 with the run kept whole', async () => {
    const dir = tempDir();
    tinyTaskSet(dir, 1);
    const runs = join(dir, 'state', 'runs');
    // The run directory exists with its plan from the start of the run: the run is under way.
    const r = await signalWhen(
      ['run', 'tasks.yaml', '--agent', 'oracle', '--sandbox', 'local', '--out', 'state'],
      dir,
      'SIGHUP',
      () => existsSync(runs) && readdirSync(runs).length > 0,
    );
    expect(r, r.stderr).toMatchObject({ code: 130, killedBy: null });
    const [runId] = readdirSync(runs);
    expect(existsSync(join(runs, runId as string, 'plan.json'))).toBe(true);
    expect(existsSync(join(runs, runId as string, 'summary.json'))).toBe(true);
  });
});
