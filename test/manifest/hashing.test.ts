import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE, manifestText, sha256File, verifyRunDir, walkArtifacts, writeRunManifest } from '../../src/domain/manifest/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const sha = (data: string): string => createHash('sha256').update(data).digest('hex');

describe('walkArtifacts', () => {
  it('hashes regular files by content, sorted by path, and skips the given top-level names', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub', 'deep'), { recursive: true });
    mkdirSync(join(dir, 'workspace'));
    writeFileSync(join(dir, 'b.txt'), 'bee');
    writeFileSync(join(dir, 'sub', 'deep', 'a.xml'), '<a/>');
    writeFileSync(join(dir, 'workspace', 'big'), 'scratch');
    writeFileSync(join(dir, MANIFEST_FILE), '{}');
    const entries = await walkArtifacts(dir, { skip: ['workspace', MANIFEST_FILE] });
    expect(entries).toEqual([
      { path: 'b.txt', type: 'file', sha256: sha('bee'), size: 3 },
      { path: 'sub/deep/a.xml', type: 'file', sha256: sha('<a/>'), size: 4 },
    ]);
    expect(await sha256File(join(dir, 'b.txt'))).toBe(sha('bee'));
  });

  it('records a symlink and a fifo by kind and never reads through them', async () => {
    const dir = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'outside the attempt');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'link'));
    symlinkSync(outside, join(dir, 'dirlink'));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const entries = await walkArtifacts(dir);
    expect(entries).toEqual([
      { path: 'dirlink', type: 'symlink' },
      { path: 'link', type: 'symlink' },
      { path: 'pipe', type: 'other' },
    ]);
    // sha256File refuses a symlink rather than hashing what it points at.
    await expect(sha256File(join(dir, 'link'))).rejects.toThrow();
  });
});

/** A run directory with run-level files and one attempt recorded without a manifest of its own. */
async function fakeRun(): Promise<{ runDir: string; attemptDir: string }> {
  const runDir = join(tempDir(), 'run-1');
  const attemptDir = join(runDir, 'attempts', 'a.oracle.0');
  mkdirSync(join(attemptDir, 'workspace'), { recursive: true });
  writeFileSync(join(runDir, 'plan.json'), '{"plan":1}\n');
  writeFileSync(join(runDir, 'summary.json'), '{"summary":1}\n');
  writeFileSync(join(attemptDir, 'attempt.json'), '{"attemptId":"a.oracle.0"}\n');
  writeFileSync(join(attemptDir, 'diff.patch'), 'diff --git a/x b/x\n');
  writeFileSync(join(attemptDir, 'workspace', 'scratch.txt'), 'not evidence');
  await writeRunManifest({ runDir, runId: 'run-1', tasks: [], agents: ['oracle'], sandbox: 'local', attemptIds: ['a.oracle.0'], scratch: ['workspace'] });
  return { runDir, attemptDir };
}

describe('verifyRunDir on a run whose attempt has no manifest of its own', () => {
  it('passes as written, ignoring scratch trees and derived reports', async () => {
    const { runDir, attemptDir } = await fakeRun();
    writeFileSync(join(attemptDir, 'workspace', 'more.txt'), 'scratch changes are not evidence');
    writeFileSync(join(runDir, 'report.md'), '# written after the manifest');
    const report = await verifyRunDir(runDir);
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, runId: 'run-1', attempts: 1 });
  });

  it('names each changed, missing and unexpected file', async () => {
    const { runDir, attemptDir } = await fakeRun();
    writeFileSync(join(attemptDir, 'diff.patch'), 'diff --git a/x b/y\n');
    rmSync(join(runDir, 'summary.json'));
    writeFileSync(join(attemptDir, 'planted.txt'), 'x');
    mkdirSync(join(runDir, 'attempts', 'ghost'));
    const report = await verifyRunDir(runDir);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => `${p.file} ${p.kind}`).sort()).toEqual([
      'attempts/a.oracle.0/diff.patch changed',
      'attempts/a.oracle.0/planted.txt unexpected',
      'attempts/ghost unexpected',
      'summary.json missing',
    ]);
    expect(report.problems.find((p) => p.file === 'attempts/ghost')?.detail).toContain('did not finish');
  });

  it('sees a file replaced by a symlink to the same content as changed', async () => {
    const { runDir } = await fakeRun();
    const copy = join(tempDir(), 'plan.json');
    writeFileSync(copy, readFileSync(join(runDir, 'plan.json')));
    rmSync(join(runDir, 'plan.json'));
    symlinkSync(copy, join(runDir, 'plan.json'));
    const report = await verifyRunDir(runDir);
    expect(report.problems).toEqual([{ file: 'plan.json', kind: 'changed', detail: 'recorded as a file, now a symlink' }]);
  });

  it('reports schema errors, a missing manifest and an attempt id that would leave the run directory', async () => {
    const { runDir } = await fakeRun();
    const manifest = JSON.parse(readFileSync(join(runDir, MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(runDir, MANIFEST_FILE), manifestText({ ...manifest, schemaVersion: 99 }));
    expect((await verifyRunDir(runDir)).problems).toEqual([{ file: MANIFEST_FILE, kind: 'schema', detail: expect.stringContaining('schemaVersion') }]);

    writeFileSync(join(runDir, MANIFEST_FILE), manifestText({ ...manifest, attempts: [{ attemptId: '..', manifest: 'a'.repeat(64) }] }));
    const escaped = await verifyRunDir(runDir);
    expect(escaped.problems).toContainEqual({ file: MANIFEST_FILE, kind: 'schema', detail: expect.stringContaining('".."') });
    expect(escaped.problems).toContainEqual({ file: 'attempts/a.oracle.0', kind: 'unexpected', detail: 'not in the run manifest' });

    rmSync(join(runDir, MANIFEST_FILE));
    expect((await verifyRunDir(runDir)).problems).toEqual([{ file: MANIFEST_FILE, kind: 'missing', detail: expect.any(String) }]);
  });
});
