import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_PATHS } from '../../src/domain/config/index.js';
import { readAddedLines } from '../../src/domain/evidence/added-lines.js';
import { captureChange, type Capture } from '../../src/domain/evidence/change.js';
import { collectDiff } from '../../src/domain/evidence/diff.js';
import { ignoredManifest, notGraded } from '../../src/domain/evidence/not-graded.js';
import { protectTests } from '../../src/domain/evidence/test-guard.js';
import { describeScanLimit, scanWorkspace } from '../../src/domain/evidence/workspace-scan.js';
import { addWorkspaceRepo, commitBaseline } from '../../src/infra/workspace/baseline.js';
import { copyTree, materializeTree } from '../../src/infra/workspace/materialize.js';
import { removeTree } from '../../src/infra/workspace/remove-tree.js';
import { overlayDirectory } from '../../src/infra/workspace/tree-edit.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const LIMITS = { maxFiles: 1000, maxBytes: 1024 * 1024 };

/**
 * An attempt as the engine lays it out: the repo committed, given its own .git and copied as
 * `pristine`; the agent works on the committed tree itself; a canary directory lies outside both.
 */
async function attempt(files: Record<string, string | Buffer>) {
  const root = tempDir();
  const ws = join(root, 'workspace');
  const pristine = join(root, 'pristine');
  const outside = join(root, 'outside');
  mkdirSync(ws, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'canary.txt'), 'untouched\n');
  for (const [path, content] of Object.entries(files)) write(ws, path, content);
  const baseline = await commitBaseline(ws, join(root, 'baseline.git'), join(root, 'store.git'));
  const ignored = await ignoredManifest(baseline, ws);
  await addWorkspaceRepo(ws, baseline);
  await copyTree(ws, pristine);
  const agentGit = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=agent', '-c', 'user.email=a@b', ...args], { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  /** The agent stops: its workspace is moved aside and captured. */
  const capture = async (limits = LIMITS): Promise<Capture> => {
    const agentWs = join(root, 'agent-workspace');
    if (!existsSync(agentWs)) renameSync(ws, agentWs);
    const scan = await scanWorkspace(agentWs, { maxFiles: 100_000, maxBytes: 1e12 });
    return captureChange({ baseline, workTree: agentWs, nestedGit: scan.nestedGit, maxFiles: limits.maxFiles, maxBytes: limits.maxBytes });
  };
  const captured = async (): Promise<string> => {
    const result = await capture();
    if (!result.ok) throw new Error(result.detail);
    return result.tree;
  };
  const diff = async (tree: string) =>
    collectDiff({ gitDir: baseline.store, from: baseline.tree, to: tree, patchFile: join(root, 'diff.patch'), maxPatchBytes: 1024 * 1024 });
  const paths = async (tree: string) => (await diff(tree)).files.map((f) => f.path).sort();
  /** A verification copy of `tree`, at the workspace's path. */
  const verifyCopy = async (tree: string): Promise<string> => {
    await materializeTree({ pristine, dest: ws, baseline, tree });
    return ws;
  };
  const protect = (tree: string, reportPaths: string[] = []) => protectTests({ baseline, tree, testPaths: DEFAULT_TEST_PATHS, reportPaths });
  return { root, ws, pristine, outside, baseline, ignored, agentGit, capture, captured, diff, paths, verifyCopy, protect };
}

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

const read = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');

/** `root/name` as bytes, for names that are not UTF-8. */
const bytesPath = (root: string, name: Buffer): Buffer => Buffer.concat([Buffer.from(`${root}/`), name]);

describe('capturing the change', () => {
  it('captures nothing when nothing changed, and the agent sees a clean git repo at the baseline', async () => {
    const a = await attempt({ 'a.txt': 'one\n', 'src/b.js': 'x\n' });
    expect(a.agentGit('status', '--porcelain')).toBe('');
    expect(a.agentGit('rev-parse', 'HEAD').trim()).toBe(a.baseline.commit);
    expect(await a.captured()).toBe(a.baseline.tree);
  });

  it('classifies added, modified, deleted, renamed and binary files with line counts', async () => {
    const a = await attempt({
      'keep.txt': 'a\nb\nc\n',
      'gone.txt': 'bye\n',
      'old-name.txt': 'same content here\nline two\nline three\n',
      'img.bin': Buffer.from([0, 1, 2, 3]),
    });
    writeFileSync(join(a.ws, 'keep.txt'), 'a\nB\nc\nd\n');
    rmSync(join(a.ws, 'gone.txt'));
    renameSync(join(a.ws, 'old-name.txt'), join(a.ws, 'new-name.txt'));
    writeFileSync(join(a.ws, 'img.bin'), Buffer.from([0, 9, 9, 9, 0]));
    writeFileSync(join(a.ws, 'new.txt'), '1\n2\n');
    const diff = await a.diff(await a.captured());
    const byPath = Object.fromEntries(diff.files.map((f) => [f.path, f]));
    expect(byPath['keep.txt']).toMatchObject({ kind: 'modified', added: 2, deleted: 1, binary: false });
    expect(byPath['gone.txt']).toMatchObject({ kind: 'deleted', deleted: 1 });
    expect(byPath['new-name.txt']).toMatchObject({ kind: 'renamed', oldPath: 'old-name.txt' });
    expect(byPath['img.bin']).toMatchObject({ kind: 'modified', binary: true });
    expect(byPath['new.txt']).toMatchObject({ kind: 'added', added: 2 });
    expect(diff).toMatchObject({ filesChanged: 5, added: 4, patch: { truncated: false } });
    expect(read(a.root, 'diff.patch')).toContain('GIT binary patch');
  });

  it('sees the change whatever the agent does to its .git: commits, branches, resets, deleting it', async () => {
    const a = await attempt({ 'a.txt': 'one\n' });
    writeFileSync(join(a.ws, 'a.txt'), 'two\n');
    a.agentGit('commit', '-qam', 'agent commit');
    a.agentGit('checkout', '-qb', 'other');
    a.agentGit('reset', '--soft', 'HEAD~1');
    a.agentGit('commit', '-qm', 'rewritten history');
    rmSync(join(a.ws, '.git'), { recursive: true, force: true });
    writeFileSync(join(a.ws, 'b.txt'), 'new\n');
    expect(await a.paths(await a.captured())).toEqual(['a.txt', 'b.txt']);
  });

  it('leaves out runtime debris and ignored files, and lists them as not graded', async () => {
    const a = await attempt({ '.gitignore': 'build/\n', 'm.py': 'x = 1\n', 'build/out.js': 'old\n' });
    write(a.ws, '__pycache__/m.cpython-311.pyc', 'forged bytecode');
    write(a.ws, 'sourceless.pyc', 'bytecode with no source');
    write(a.ws, 'build/out.js', 'changed build output\n');
    const tree = await a.captured();
    expect(await a.paths(tree)).toEqual([]);
    const skipped = notGraded(a.ignored, await ignoredManifest(a.baseline, join(a.root, 'agent-workspace')), { dependencies: [], newTests: [] });
    expect(skipped.items.map((i) => `${i.reason} ${i.path}`).sort()).toEqual([
      'ignored __pycache__/m.cpython-311.pyc',
      'ignored build/out.js',
      'ignored sourceless.pyc',
    ]);
    const copy = await a.verifyCopy(tree);
    expect(read(copy, 'build/out.js')).toBe('old\n');
    expect(existsSync(join(copy, 'sourceless.pyc'))).toBe(false);
    expect(existsSync(join(copy, '__pycache__'))).toBe(false);
  });

  it('still captures a file the agent hid by adding it to .gitignore', async () => {
    const a = await attempt({ '.gitignore': 'node_modules/\n', 'a.txt': 'one\n' });
    write(a.ws, 'conftest.py', 'import pytest\n');
    write(a.ws, '.gitignore', 'node_modules/\nconftest.py\n');
    write(a.ws, 'node_modules/dep.js', 'ignored at baseline too\n');
    expect(await a.paths(await a.captured())).toEqual(['.gitignore', 'conftest.py']);
  });

  it("captures a nested repository's files as plain files, even one with no commit", async () => {
    const a = await attempt({ 'a.txt': 'one\n' });
    mkdirSync(join(a.ws, 'vendor/lib'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: join(a.ws, 'vendor/lib') });
    write(a.ws, 'vendor/lib/creds.txt', 'AWS_SECRET_ACCESS_KEY=abc\n');
    mkdirSync(join(a.ws, 'broken'), { recursive: true });
    write(a.ws, 'broken/.git', 'gitdir: /nonexistent\n');
    write(a.ws, 'broken/f.txt', 'x\n');
    const tree = await a.captured();
    expect(await a.paths(tree)).toEqual(['broken/f.txt', 'vendor/lib/creds.txt']);
    expect(read(a.root, 'diff.patch')).toContain('+AWS_SECRET_ACCESS_KEY=abc');
  });

  it('sizes, and neutralizes a nested repository under, names that are not UTF-8', async () => {
    const a = await attempt({ 'a.txt': 'one\n' });
    // d\377/lib: a nested repository (no commit yet) holding a secret, under a directory name that is not UTF-8.
    execFileSync('sh', ['-c', 'd="$(printf \'d\\377\')/lib" && mkdir -p "$d" && git init -q "$d" && echo AWS_SECRET_ACCESS_KEY=abc > "$d/creds.txt"'], {
      cwd: a.ws,
    });
    const tree = await a.captured();
    expect(await a.paths(tree)).toHaveLength(1);
    expect(read(a.root, 'diff.patch')).toContain('+AWS_SECRET_ACCESS_KEY=abc');
    writeFileSync(bytesPath(a.root, Buffer.from('agent-workspace/big\xfe', 'latin1')), Buffer.alloc(5000, 0x41));
    // 5 000 bytes under a name that is not UTF-8 still count against the change's size.
    expect(await a.capture({ maxFiles: 1000, maxBytes: 1000 })).toMatchObject({ ok: false, exceeded: 'change_size' });
  });

  it('captures past FIFOs named .gitignore and .gitattributes, which git would wait on forever', async () => {
    const a = await attempt({ 'a.txt': 'one\n', 'lib/b.txt': 'two\n' });
    write(a.ws, 'a.txt', 'fixed\n');
    execFileSync('sh', ['-c', 'mkfifo .gitattributes lib/.gitignore new.fifo && rm lib/b.txt && mkfifo lib/b.txt'], { cwd: a.ws });
    const tree = await a.captured();
    // No FIFO is part of a change: the one put in place of a tracked file leaves it deleted.
    expect(await a.paths(tree)).toEqual(['a.txt', 'lib/b.txt']);
    expect((await a.diff(tree)).files.find((f) => f.path === 'lib/b.txt')?.kind).toBe('deleted');
  });

  it('records symlinks as symlinks, and a verification copy never writes through one', async () => {
    const a = await attempt({ 'a.txt': 'one\n', 'tests/test_a.py': 'def test_a():\n    assert True\n' });
    symlinkSync(join(a.outside, 'canary.txt'), join(a.ws, 'link.txt'));
    rmSync(join(a.ws, 'tests'), { recursive: true });
    symlinkSync(a.outside, join(a.ws, 'tests'));
    const tree = await a.captured();
    const graded = await a.protect(tree);
    const copy = await a.verifyCopy(graded.tree);
    expect(readlinkSync(join(copy, 'link.txt'))).toBe(join(a.outside, 'canary.txt'));
    // The symlinked tests/ gave way to the baseline's real directory.
    expect(lstatSync(join(copy, 'tests')).isDirectory()).toBe(true);
    expect(read(copy, 'tests/test_a.py')).toContain('def test_a');
    expect(graded.evidence.findings.map((f) => `${f.kind} ${f.path}`)).toEqual(['deleted tests/test_a.py']);
    // Held-out files land in the copy, not through the agent's link.
    const heldOutDir = join(a.root, 'held-out');
    write(heldOutDir, 'link.txt', 'held-out content\n');
    write(heldOutDir, 'tests/test_hidden.py', 'def test_hidden():\n    pass\n');
    const withHeldOut = await a.verifyCopy(await overlayDirectory(a.baseline, graded.tree, heldOutDir));
    expect(lstatSync(join(withHeldOut, 'link.txt')).isFile()).toBe(true);
    expect(read(withHeldOut, 'tests/test_hidden.py')).toContain('test_hidden');
    expect(read(a.outside, 'canary.txt')).toBe('untouched\n');
  });

  it('refuses a change past its file-count or size limit before hashing any of it', async () => {
    const a = await attempt({ 'a.txt': 'one\n' });
    for (let i = 0; i < 30; i++) write(a.ws, `many/f${i}.txt`, 'x\n');
    expect(await a.capture({ maxFiles: 20, maxBytes: 1e9 })).toMatchObject({ ok: false, exceeded: 'change_files' });
    const b = await attempt({ 'a.txt': 'one\n' });
    writeFileSync(join(b.ws, 'big.bin'), '');
    truncateSync(join(b.ws, 'big.bin'), 1024 * 1024 * 1024);
    expect(await b.capture({ maxFiles: 100, maxBytes: 64 * 1024 * 1024 })).toMatchObject({
      ok: false,
      exceeded: 'change_size',
      detail: expect.stringMatching(/limits\.change_size/),
    });
    // Nothing of the gigabyte reached the object store.
    const objects = execFileSync('du', ['-sk', join(b.baseline.store, 'objects')], { encoding: 'utf8' });
    expect(Number(objects.split('\t')[0])).toBeLessThan(10 * 1024);
  });
});

describe('protected paths in the verified tree', () => {
  const FILES = {
    'src/domain/stats.py': 'def median(xs):\n    return xs[0]\n',
    'tests/test_stats.py': 'def test_median():\n    assert False\n',
    'package.json': JSON.stringify({ name: 'x', scripts: { test: 'node --test test/' }, dependencies: { a: '1' } }, null, 2),
    'pyproject.toml': '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
  };

  it('puts edited and deleted tests back and calls it tampering; a renamed test is found as renamed', async () => {
    const a = await attempt({ ...FILES, 'tests/test_other.py': 'def test_other():\n    pass\n' });
    write(a.ws, 'tests/test_stats.py', 'def test_median():\n    return\n');
    renameSync(join(a.ws, 'tests/test_other.py'), join(a.ws, 'tests/renamed_other.py'));
    const graded = await a.protect(await a.captured());
    expect(graded.evidence.findings.map((f) => `${f.kind} ${f.oldPath ? `${f.oldPath} → ` : ''}${f.path}`).sort()).toEqual([
      'modified tests/test_stats.py',
      'renamed tests/test_other.py → tests/renamed_other.py',
    ]);
    const copy = await a.verifyCopy(graded.tree);
    expect(read(copy, 'tests/test_stats.py')).toContain('assert False');
    expect(read(copy, 'tests/test_other.py')).toContain('test_other');
    expect(existsSync(join(copy, 'tests/renamed_other.py'))).toBe(false);
  });

  it('sets new tests and new test configuration aside without calling it tampering, and keeps the fix', async () => {
    const a = await attempt(FILES);
    write(a.ws, 'src/domain/stats.py', 'def median(xs):\n    return sorted(xs)[len(xs) // 2]\n');
    write(a.ws, 'tests/test_more.py', 'def test_more(numbers):\n    assert numbers\n');
    write(a.ws, 'tests/conftest.py', 'import pytest\n\n@pytest.fixture\ndef numbers():\n    return [1]\n');
    write(a.ws, 'pytest.toml', '[pytest]\naddopts = ["-p", "evil"]\n');
    const graded = await a.protect(await a.captured());
    expect(graded.evidence.findings.map((f) => `${f.kind} ${f.path}`).sort()).toEqual([
      'added pytest.toml',
      'added tests/conftest.py',
      'added tests/test_more.py',
    ]);
    const copy = await a.verifyCopy(graded.tree);
    expect(read(copy, 'src/domain/stats.py')).toContain('sorted');
    for (const gone of ['tests/test_more.py', 'tests/conftest.py', 'pytest.toml']) expect(existsSync(join(copy, gone)), gone).toBe(false);
  });

  it('keeps unrelated edits to configuration files and restores only a changed test section', async () => {
    const a = await attempt(FILES);
    write(a.ws, 'package.json', JSON.stringify({ name: 'x', scripts: { test: 'node --test test/' }, dependencies: { a: '1', b: '2' } }, null, 2));
    write(a.ws, 'pyproject.toml', '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q -p no_asserts"\n');
    const graded = await a.protect(await a.captured());
    expect(graded.evidence.findings.map((f) => `${f.kind} ${f.path}`)).toEqual(['config pyproject.toml']);
    const copy = await a.verifyCopy(graded.tree);
    expect(read(copy, 'package.json')).toContain('"b": "2"');
    expect(read(copy, 'pyproject.toml')).not.toContain('no_asserts');
  });

  it('takes dependency paths and report paths from the baseline, without calling it tampering', async () => {
    const a = await attempt({ ...FILES, 'node_modules/.bin/vitest': '#!/bin/sh\nexec real-vitest "$@"\n' });
    write(a.ws, 'node_modules/.bin/vitest', '#!/bin/sh\necho all passed\n');
    write(a.ws, 'lib.dist-info/entry_points.txt', '[pytest11]\nevil = evil\n');
    symlinkSync(a.outside, join(a.ws, 'reports'));
    const graded = await a.protect(await a.captured(), ['reports/junit.xml']);
    expect(graded.evidence.findings).toEqual([]);
    expect(graded.dependencies.sort()).toEqual(['lib.dist-info/entry_points.txt', 'node_modules/.bin/vitest']);
    const copy = await a.verifyCopy(graded.tree);
    expect(read(copy, 'node_modules/.bin/vitest')).toContain('real-vitest');
    expect(existsSync(join(copy, 'lib.dist-info'))).toBe(false);
    expect(existsSync(join(copy, 'reports'))).toBe(false);
  });
});

describe('added lines', () => {
  it('reads the added lines of every file from the patch, binaries from the captured tree', async () => {
    const a = await attempt({ 'src/a.js': 'export const a = 1;\n', 'tests/test_a.py': 'def test_a():\n    pass\n' });
    write(a.ws, 'src/a.js', 'export const a = 1;\n++counter;\nconst key = "x";\n');
    write(a.ws, 'odd\tname.txt', 'secret here\n');
    writeFileSync(join(a.ws, 'blob.bin'), Buffer.concat([Buffer.from([0, 1, 2, 255]), Buffer.from('\nAKIA2E3MQ7T4XJ5LQ6WK\n')]));
    unlinkSync(join(a.ws, 'tests/test_a.py'));
    const tree = await a.captured();
    const diff = await a.diff(tree);
    // The workspace is gone by the time lines are read: only the tree is.
    rmSync(join(a.root, 'agent-workspace'), { recursive: true });
    const scan = await readAddedLines(join(a.root, 'diff.patch'), diff, { gitDir: a.baseline.store, tree });
    expect(scan.complete).toBe(true);
    const byPath = Object.fromEntries(scan.files.map((x) => [x.path, x]));
    expect(byPath['src/a.js']?.lines).toEqual([
      { line: 2, text: '++counter;' },
      { line: 3, text: 'const key = "x";' },
    ]);
    expect(byPath['odd\tname.txt']?.lines).toEqual([{ line: 1, text: 'secret here' }]);
    expect(byPath['blob.bin']?.lines.some((l) => l.text === 'AKIA2E3MQ7T4XJ5LQ6WK')).toBe(true);
    expect(byPath['tests/test_a.py']).toBeUndefined();
  });

  it('is incomplete when the patch is missing or was cut at its cap', async () => {
    const none = { gitDir: '/nonexistent', tree: 'x' };
    expect(await readAddedLines('/nonexistent/diff.patch', { files: [], filesChanged: 0, added: 0, deleted: 0 }, none)).toMatchObject({
      complete: false,
      incomplete: expect.stringMatching(/missing/),
    });
    const a = await attempt({ 'a.txt': 'one\n' });
    write(a.ws, 'a.txt', `${'x'.repeat(5000)}\n`);
    const tree = await a.captured();
    const diff = await collectDiff({ gitDir: a.baseline.store, from: a.baseline.tree, to: tree, patchFile: join(a.root, 'cut.patch'), maxPatchBytes: 100 });
    expect(diff.patch).toEqual({ bytes: 100, truncated: true, capBytes: 100 });
    expect((await readAddedLines(join(a.root, 'cut.patch'), diff, { gitDir: a.baseline.store, tree })).complete).toBe(false);
  });
});

describe('measuring a workspace', () => {
  it('counts what lies under a directory whose name is not UTF-8', async () => {
    const root = tempDir();
    const dir = bytesPath(root, Buffer.from([0x64, 0xff]));
    mkdirSync(dir);
    for (let i = 0; i < 30; i++) writeFileSync(Buffer.concat([dir, Buffer.from(`/f${i}`)]), 'x');
    expect(await scanWorkspace(root, { maxFiles: 20, maxBytes: 1e12 })).toMatchObject({ exceeded: 'workspace_files', files: 21 });
    writeFileSync(Buffer.concat([dir, Buffer.from('/big')]), Buffer.alloc(2 * 1024 * 1024, 1));
    expect((await scanWorkspace(root, { maxFiles: 1000, maxBytes: 1024 * 1024 })).exceeded).toBe('workspace_disk');
  });

  it('calls a path deeper than PATH_MAX over the limit: nothing below it could be counted', async () => {
    const root = tempDir();
    const script = `const fs = require('fs'); process.chdir(process.argv[1]); for (let i = 0; i < 2100; i++) { fs.mkdirSync('d'); process.chdir('d'); } fs.writeFileSync('big', Buffer.alloc(1 << 20));`;
    execFileSync(process.execPath, ['-e', script, root]);
    try {
      const scan = await scanWorkspace(root, { maxFiles: 100_000, maxBytes: 1e12 });
      expect(scan).toMatchObject({ exceeded: 'workspace_files', tooDeep: true });
      expect(describeScanLimit(scan, { maxFiles: 100_000, maxBytes: 1e12 })).toMatch(/PATH_MAX.*limits\.workspace_files/);
    } finally {
      await removeTree(join(root, 'd'));
    }
  });

  it('stops at the file-count limit and counts sparse files by the disk they take', async () => {
    const root = tempDir();
    for (let i = 0; i < 50; i++) write(root, `d/f${i}`, 'x');
    expect(await scanWorkspace(root, { maxFiles: 20, maxBytes: 1e12 })).toMatchObject({ exceeded: 'workspace_files', files: 21 });
    writeFileSync(join(root, 'sparse'), '');
    truncateSync(join(root, 'sparse'), 1024 * 1024 * 1024);
    expect((await scanWorkspace(root, { maxFiles: 1000, maxBytes: 64 * 1024 * 1024 })).exceeded).toBeUndefined();
    writeFileSync(join(root, 'real'), Buffer.alloc(2 * 1024 * 1024, 1));
    expect((await scanWorkspace(root, { maxFiles: 1000, maxBytes: 1024 * 1024 })).exceeded).toBe('workspace_disk');
  });
});
