import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectDiff } from '../../src/evidence/diff.js';
import { commitBaseline } from '../../src/workspace/baseline.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A workspace with a baseline, as the engine prepares one. */
async function prepared(files: Record<string, string | Buffer>) {
  const root = tempDir();
  const workspace = join(root, 'workspace');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(workspace, path, '..'), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
  mkdirSync(workspace, { recursive: true });
  const baseline = await commitBaseline(workspace, join(root, 'baseline.git'));
  const diff = () => collectDiff({ gitDir: baseline.gitDir, workspace, baseline: baseline.commit, patchFile: join(root, 'diff.patch') });
  const agentGit = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=agent', '-c', 'user.email=a@b', ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { root, workspace, baseline, diff, agentGit, patch: () => readFileSync(join(root, 'diff.patch'), 'utf8') };
}

describe('baseline and diff', () => {
  it('reports nothing when nothing changed, and the agent sees a clean git repo', async () => {
    const ws = await prepared({ 'a.txt': 'one\n', 'src/b.js': 'x\n' });
    expect((await ws.diff()).filesChanged).toBe(0);
    expect(ws.agentGit('status', '--porcelain')).toBe('');
    expect(ws.agentGit('rev-parse', 'HEAD').trim()).toBe(ws.baseline.commit);
    expect(ws.agentGit('log', '--format=%s')).toContain('crucible baseline');
  });

  it('classifies added, modified, deleted, renamed and binary files with line counts', async () => {
    const ws = await prepared({ 'keep.txt': 'a\nb\nc\n', 'gone.txt': 'bye\n', 'old-name.txt': 'same content here\nline two\nline three\n', 'img.bin': Buffer.from([0, 1, 2, 3]) });
    writeFileSync(join(ws.workspace, 'keep.txt'), 'a\nB\nc\nd\n');
    rmSync(join(ws.workspace, 'gone.txt'));
    renameSync(join(ws.workspace, 'old-name.txt'), join(ws.workspace, 'new-name.txt'));
    writeFileSync(join(ws.workspace, 'img.bin'), Buffer.from([0, 9, 9, 9, 0]));
    writeFileSync(join(ws.workspace, 'new.txt'), '1\n2\n');
    const diff = await ws.diff();
    const byPath = Object.fromEntries(diff.files.map((f) => [f.path, f]));
    expect(byPath['keep.txt']).toMatchObject({ kind: 'modified', added: 2, deleted: 1, binary: false });
    expect(byPath['gone.txt']).toMatchObject({ kind: 'deleted', deleted: 1 });
    expect(byPath['new-name.txt']).toMatchObject({ kind: 'renamed', oldPath: 'old-name.txt' });
    expect(byPath['img.bin']).toMatchObject({ kind: 'modified', binary: true });
    expect(byPath['new.txt']).toMatchObject({ kind: 'added', added: 2 });
    expect(diff.filesChanged).toBe(5);
    expect(diff.added).toBe(4);
    expect(ws.patch()).toContain('GIT binary patch');
  });

  it('sees changes whatever the agent does to .git: commit, branch switch, reset, deletion', async () => {
    const ws = await prepared({ 'a.txt': 'one\n' });
    writeFileSync(join(ws.workspace, 'a.txt'), 'two\n');
    ws.agentGit('commit', '-qam', 'agent commit');
    ws.agentGit('checkout', '-qb', 'other');
    expect((await ws.diff()).files.map((f) => f.path)).toEqual(['a.txt']);

    ws.agentGit('reset', '--soft', 'HEAD~1');
    ws.agentGit('commit', '-qm', 'rewritten history');
    expect((await ws.diff()).files.map((f) => f.path)).toEqual(['a.txt']);

    rmSync(join(ws.workspace, '.git'), { recursive: true, force: true });
    writeFileSync(join(ws.workspace, 'b.txt'), 'new\n');
    expect((await ws.diff()).files.map((f) => f.path).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('does not count runtime debris such as __pycache__ as a change', async () => {
    const ws = await prepared({ 'm.py': 'x = 1\n' });
    mkdirSync(join(ws.workspace, '__pycache__'));
    writeFileSync(join(ws.workspace, '__pycache__', 'm.cpython-311.pyc'), 'bytes');
    expect((await ws.diff()).filesChanged).toBe(0);
  });

  it('still sees a file the agent hid by adding it to .gitignore', async () => {
    const ws = await prepared({ '.gitignore': 'node_modules/\n', 'a.txt': 'one\n' });
    writeFileSync(join(ws.workspace, 'conftest.py'), 'import pytest\n');
    writeFileSync(join(ws.workspace, '.gitignore'), 'node_modules/\nconftest.py\n');
    mkdirSync(join(ws.workspace, 'node_modules'));
    writeFileSync(join(ws.workspace, 'node_modules', 'dep.js'), 'ignored at baseline too\n');
    const paths = (await ws.diff()).files.map((f) => f.path).sort();
    expect(paths).toEqual(['.gitignore', 'conftest.py']);
  });

  it('keeps the harness git directory outside the workspace', async () => {
    const ws = await prepared({ 'a.txt': 'one\n' });
    expect(ws.baseline.gitDir.startsWith(ws.workspace)).toBe(false);
    expect(existsSync(join(ws.baseline.gitDir, 'objects'))).toBe(true);
  });
});
