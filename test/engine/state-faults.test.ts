import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptFaultOf, stateDirFaultOf } from '../../src/engine/state-faults.js';
import { InputError } from '../../src/core/errors.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const result: AttemptResult = {
  attemptId: 't.a.0',
  runId: 'r1',
  taskId: 't',
  taskVersion: '1',
  agent: 'a',
  trial: 0,
  index: 0,
  schemaVersion: 1,
  verdict: 'PASS',
  cause: 'passed',
  message: '',
  sandbox: 'local',
  checks: [],
  timings: { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 },
  startedAt: '',
  finishedAt: '',
};

function errno(code: string, path: string, text = code): Error {
  return Object.assign(new Error(`${code}: ${text}, open '${path}'`), { code, path });
}

describe('stateDirFaultOf', () => {
  it('tells a full disk (exit 75, resumable) from a read-only or unwritable state directory (exit 2)', () => {
    const dir = tempDir();
    const stateDir = join(dir, '.crucible');
    const runDir = join(stateDir, 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });
    const ctx = { stateDir, runDir, runId: 'r1' };
    const full = stateDirFaultOf(errno('ENOSPC', join(runDir, 'summary.json.1.tmp')), ctx);
    expect(full).toMatchObject({ fault: 'no_space', exitCode: 75 });
    // No plan.json yet: nothing to resume, so the fix is to run again.
    expect(full?.message).toMatch(
      /^no space left on device writing .*runs\/r1\/summary\.json\.1\.tmp \(fix: free space on the disk of .*\.crucible, then run again\)$/,
    );
    expect(stateDirFaultOf(errno('EDQUOT', join(runDir, 'x')), ctx)).toMatchObject({ fault: 'no_space' });
    // A tool's words are not evidence: they can quote a file name the agent chose. statfs decides, and this disk has room.
    expect(stateDirFaultOf(new Error("cp: error writing 'a/b': No space left on device"), ctx)).toBeUndefined();
    expect(stateDirFaultOf(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), ctx)).toMatchObject({ fault: 'no_space' });
    expect(stateDirFaultOf(errno('EROFS', join(runDir, 'run.lock')), ctx)).toMatchObject({ fault: 'read_only', exitCode: 2 });
    expect(stateDirFaultOf(errno('EACCES', join(runDir, 'run.lock')), ctx)).toMatchObject({ fault: 'no_permission', exitCode: 2 });
  });

  it('leaves other errors alone: permission errors outside the state directory, missing input files, input errors', () => {
    const dir = tempDir();
    const ctx = { stateDir: join(dir, '.crucible'), runDir: join(dir, '.crucible', 'runs', 'r1'), runId: 'r1' };
    mkdirSync(ctx.runDir, { recursive: true });
    expect(stateDirFaultOf(errno('EACCES', join(dir, 'tasks.yaml')), ctx)).toBeUndefined();
    expect(stateDirFaultOf(errno('ENOENT', join(dir, 'tasks.yaml')), ctx)).toBeUndefined();
    expect(stateDirFaultOf(errno('ENOENT', join(ctx.runDir, 'attempts', 'a', 'attempt.json')), ctx)).toBeUndefined();
    expect(stateDirFaultOf(new InputError('bad --runs'), ctx)).toBeUndefined();
    expect(stateDirFaultOf(new Error('something else'), ctx)).toBeUndefined();
    // The sandbox mounts the system read-only: those words about another directory are not the state directory's fault.
    expect(stateDirFaultOf(new Error("mkdir: cannot create directory '/usr/x': Read-only file system"), ctx)).toBeUndefined();
  });

  it("judges a harness error by the harness's own evidence, never by its message", () => {
    const dir = tempDir();
    const ctx = { stateDir: join(dir, '.crucible'), runDir: join(dir, '.crucible', 'runs', 'r1'), runId: 'r1' };
    mkdirSync(ctx.runDir, { recursive: true });
    writeFileSync(join(ctx.runDir, 'plan.json'), '{}');
    const errored = (message: string, stateDiskFull?: boolean) => ({
      ...result,
      verdict: 'ERROR' as const,
      cause: 'harness_error' as const,
      message,
      harnessError: { phase: 'prepare' as const, message, ...(stateDiskFull ? { stateDiskFull } : {}) },
    });
    // The words of a full disk, on a disk with room (git quoting the agent's "No space left on device.txt"): that attempt only.
    expect(attemptFaultOf(errored("git add --all failed: error: invalid path 'No space left on device.txt/.GIT'"), ctx)).toBeUndefined();
    expect(attemptFaultOf(errored("setup command failed (exit 1): touch: cannot touch '/usr/x': Read-only file system"), ctx)).toBeUndefined();
    // statfs found the disk full when the attempt failed: the run stops, whatever the message says.
    const full = attemptFaultOf(errored('git write-tree failed', true), ctx);
    expect(full).toMatchObject({ fault: 'no_space', exitCode: 75 });
    expect(full?.message).toMatch(/writing .*runs\/r1\/attempts\/t\.a\.0 \(fix: free space on the disk of .*, then `crucible resume r1 --retry-errors`\)$/);
    // An agent's FAIL is never the machine's, whatever its message says.
    expect(attemptFaultOf({ ...result, verdict: 'FAIL', cause: 'tests_failed', message: 'No space left on device' }, ctx)).toBeUndefined();
  });

  it('names a state directory that vanished under the run', () => {
    const dir = tempDir();
    const stateDir = join(dir, '.crucible');
    const runDir = join(stateDir, 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });
    rmSync(stateDir, { recursive: true });
    const fault = stateDirFaultOf(errno('ENOENT', join(runDir, 'checkpoint.jsonl')), { stateDir, runDir, runId: 'r1' });
    expect(fault).toMatchObject({ fault: 'vanished', exitCode: 2 });
    expect(fault?.message).toMatch(/^the state directory .*\.crucible disappeared while the run was working in it \(.*checkpoint\.jsonl is gone\)/);
  });
});
