/**
 * Only a test that ran is evidence: a verifier (or test command) that could not start — its
 * program or the interpreter on its `#!` line missing, not executable, or a shell's exit 127/126
 * with nothing written — is marked `notStarted` and never reads as a failing test. One that ran
 * and wrote its result is evidence, whatever its exit code. Real bwrap.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRewardVerifier, runTests } from '../../src/domain/evidence/index.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function bench(): { workspace: string; resultsDir: string; home: string; tmp: string } {
  const dir = tempDir();
  const [workspace, resultsDir, home, tmp] = ['ws', 'results', 'home', 'tmp'].map((d) => join(dir, d)) as [string, string, string, string];
  for (const d of [workspace, resultsDir, home, tmp]) mkdirSync(d);
  return { workspace, resultsDir, home, tmp };
}

function script(path: string, text: string, mode = 0o755): string {
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

async function reward(run: { exec?: string[]; command?: string }) {
  const b = bench();
  const executor = createExecutor('bwrap', { writable: [b.workspace, b.resultsDir], hidden: [], readOnly: [b.home], home: b.home, tmp: b.tmp });
  const exec = run.exec?.map((p) => p.replace('$HOME', b.home));
  try {
    return (
      await runRewardVerifier({
        executor,
        workspace: b.workspace,
        command: run.command ?? exec?.join(' ') ?? '',
        ...(exec ? { exec } : {}),
        env: { TEST_DIR: '/tests' },
        resultsDir: b.resultsDir,
        timeoutMs: 30_000,
      })
    ).evidence;
  } finally {
    await executor.close();
  }
}

describe('a verifier that could not start', () => {
  it('is no evidence when its #! interpreter is missing (proven by the sandbox), not executable, or absent', async () => {
    const b = bench();
    const noBash = script(join(b.home, 'no-interpreter.sh'), '#!/nonexistent/bash\necho 1 > "$CRUCIBLE_REWARD"\n');
    const plain = script(join(b.home, 'not-executable.sh'), '#!/bin/sh\necho 1 > "$CRUCIBLE_REWARD"\n', 0o644);
    for (const exec of [[noBash], [plain], [join(b.home, 'absent.sh')]]) {
      const b2 = bench();
      const executor = createExecutor('bwrap', { writable: [b2.workspace, b2.resultsDir], hidden: [], readOnly: [b.home], home: b2.home, tmp: b2.tmp });
      const run = await runRewardVerifier({
        executor,
        workspace: b2.workspace,
        command: exec.join(' '),
        exec,
        resultsDir: b2.resultsDir,
        timeoutMs: 30_000,
      }).finally(() => executor.close());
      expect(run.evidence.notStarted, exec[0]).toMatchObject({ proven: true, reason: expect.stringMatching(/could not execute it \((ENOENT|EACCES)\)/) });
      expect(run.evidence.invalidReason).toMatch(/^the verifier could not start: /);
      // No case at all: nothing reads it as a failing test.
      expect(run.cases).toBeUndefined();
      expect(run.evidence.reward).toBeUndefined();
    }
  });

  it("is a shell's exit 127 or 126 only when nothing was written; a verifier that ran is evidence", async () => {
    const missing = await reward({ command: 'no-such-interpreter /tests/test.sh' });
    expect(missing.notStarted).toMatchObject({ proven: false, reason: expect.stringMatching(/^exit 127: .*not found/) });
    const wrote = await reward({ command: 'echo 0 > "$CRUCIBLE_REWARD"; exit 127' });
    expect(wrote.notStarted).toBeUndefined();
    expect(wrote.invalidReason).toBeUndefined();
    expect(wrote.reward).toBe(0);
    // A verifier that ran, wrote nothing and exited 1: a failing run, as before.
    const failed = await reward({ command: 'exit 1' });
    expect(failed.notStarted).toBeUndefined();
    expect(failed.failToPass.failing).toEqual([{ id: 'reward', reason: 'failed' }]);
  });

  it('runs an executable directly with its env: its #! line picks the interpreter', async () => {
    const b = bench();
    script(join(b.home, 'test.sh'), '#!/bin/sh\n[ "$TEST_DIR" = /tests ] && echo 1 > "$CRUCIBLE_REWARD"\n');
    const executor = createExecutor('bwrap', { writable: [b.workspace, b.resultsDir], hidden: [], readOnly: [], home: b.home, tmp: b.tmp });
    const run = await runRewardVerifier({
      executor,
      workspace: b.workspace,
      command: 'test.sh',
      exec: [join(b.home, 'test.sh')],
      env: { TEST_DIR: '/tests' },
      resultsDir: b.resultsDir,
      timeoutMs: 30_000,
    }).finally(() => executor.close());
    expect(run.evidence.reward).toBe(1);
  });
});

describe('a test command that could not start', () => {
  it('is marked, with the reason, and reports every listed id missing rather than failed', async () => {
    const b = bench();
    const executor = createExecutor('bwrap', { writable: [b.workspace, b.resultsDir], hidden: [], readOnly: [], home: b.home, tmp: b.tmp });
    const { evidence } = await runTests({
      executor,
      workspace: b.workspace,
      command: 'no-such-runner --junit "$CRUCIBLE_JUNIT"',
      resultsDir: b.resultsDir,
      timeoutMs: 30_000,
      failToPass: ['t1'],
      passToPass: 'all_others',
    }).finally(() => executor.close());
    expect(evidence.notStarted).toMatchObject({ proven: false, reason: expect.stringMatching(/^exit 127/) });
    expect(evidence.invalidReason).toMatch(/^the test command could not start: exit 127/);
    expect(evidence.failToPass.failing).toEqual([{ id: 't1', reason: 'missing' }]);
  });
});
