import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateDirFaultOf } from '../../src/engine/state-faults.js';
import { InputError } from '../../src/errors.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

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
    expect(full?.message).toMatch(/^no space left on device writing .*runs\/r1\/summary\.json\.1\.tmp \(fix: free space on the disk of .*\.crucible, then run again\)$/);
    expect(stateDirFaultOf(errno('EDQUOT', join(runDir, 'x')), ctx)).toMatchObject({ fault: 'no_space' });
    // Tools report it in their output, not as a code.
    expect(stateDirFaultOf(new Error("cp: error writing 'a/b': No space left on device"), ctx)).toMatchObject({ fault: 'no_space' });
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
