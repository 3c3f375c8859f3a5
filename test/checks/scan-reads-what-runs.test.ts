import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectContent, runChecks } from '../../src/domain/checks/index.js';
import { readAddedLines } from '../../src/domain/evidence/added-lines.js';
import { collectDiff } from '../../src/domain/evidence/diff.js';
import { decodeSource, pythonEncoding } from '../../src/domain/evidence/source-text.js';
import { grade } from '../../src/domain/grading/verdict.js';
import { diffOf, input, taskFor } from './helpers.js';

/**
 * The content scans read a change as its interpreter reads it: through a real git store, so git's
 * own idea of a file (binary for one NUL byte, text in any encoding) is what the scan starts from.
 */
const root = mkdtempSync(join(tmpdir(), 'crucible-scan-reads-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BASE: Record<string, string | Buffer> = {
  'src/calc.py': 'def add(a, b):\n    return a + b\n',
  'src/slug.mjs': 'export const slug = (s) => s.toLowerCase();\n',
  'tests/test_calc.py': 'from src.calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n',
};

/** A 1×1 PNG: a real binary asset, NUL bytes and all. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A stored (uncompressed) zip of one file, written by Python's own zipfile. */
function zipOf(name: string, content: string): Buffer {
  const out = join(root, `zip-${Math.random().toString(36).slice(2)}.zip`);
  execFileSync('python3', ['-c', 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z: z.writestr(sys.argv[2], sys.argv[3])', out, name, content]);
  return execFileSync('cat', [out]);
}

let n = 0;
async function scanOf(files: Record<string, string | Buffer>, task = taskFor({ policy: { secrets: { paths: [], literals: [], presets: ['cloud-keys'] } } })) {
  const repo = join(root, `repo-${n++}`);
  const g = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
  const write = (all: Record<string, string | Buffer>): void => {
    for (const [path, content] of Object.entries(all)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), content);
    }
  };
  mkdirSync(repo, { recursive: true });
  g('init', '-q');
  write(BASE);
  g('add', '-A');
  g('commit', '-qm', 'base');
  const from = g('rev-parse', 'HEAD^{tree}');
  write(files);
  g('add', '-A');
  g('commit', '-qm', 'change');
  const to = g('rev-parse', 'HEAD^{tree}');
  const patchFile = join(repo, '..', `patch-${n}.diff`);
  const diff = await collectDiff({ gitDir: join(repo, '.git'), from, to, patchFile, maxPatchBytes: 8 * 1024 * 1024 });
  const lines = await readAddedLines(patchFile, diff, { gitDir: join(repo, '.git'), tree: to });
  const content = detectContent(lines, task.policy.secrets.literals);
  const checks = runChecks(input({ task, diff, content }));
  const runner = checks.find((c) => c.id === 'runner_internals');
  const secrets = checks.find((c) => c.id === 'secrets');
  const rules = ((runner?.evidence.findings as { items: Array<{ rule: string; file: string }> } | undefined)?.items ?? []).map((f) => `${f.rule} ${f.file}`);
  return { diff, lines, content, checks, runner, secrets, rules, verdict: grade({ checks }) };
}

/** Python's modified UTF-7, every character in base64: nothing of the text is left for a line rule. */
function utf7(text: string): string {
  const be = Buffer.from(text, 'utf16le').swap16();
  return `+${be.toString('base64').replace(/=+$/, '')}-`;
}

const FAKE_KEY = 'AKIAQ3EGUJK5MOR4XZ7P';

describe('decoding as the interpreter does', () => {
  it('finds the encoding Python reads a file in', () => {
    expect(pythonEncoding(Buffer.from('# -*- coding: utf-7 -*-\nx = 1\n')).declared).toBe('utf-7');
    expect(pythonEncoding(Buffer.from('#!/usr/bin/env python\n# vim: set fileencoding=latin_1 :\n')).declared).toBe('latin-1');
    // Line 2 counts only after a comment-only or blank line 1.
    expect(pythonEncoding(Buffer.from('x = 1\n# coding: utf-7\n')).declared).toBe('utf-8');
    expect(pythonEncoding(Buffer.from('\ufeffprint(1)\n')).bom).toBe(true);
    expect(decodeSource('python', Buffer.from('# coding: latin-1\ns = "\xe9"\n', 'latin1')).text).toContain('é');
    expect(decodeSource('javascript', Buffer.from('\ufeffconst x = 1;\n')).text).toBe('const x = 1;\n');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('import _pytest\n', 'utf16le')]);
    expect(decodeSource('python', utf16)).toMatchObject({ text: 'import _pytest\n', encoding: 'utf-16le', problems: [] });
    const utf32 = Buffer.alloc(4 + 4 * 3);
    utf32.writeUInt32LE(0xfeff, 0);
    [...'a=1'].forEach((c, i) => utf32.writeUInt32LE(c.charCodeAt(0), 4 + 4 * i));
    expect(decodeSource('python', utf32).text).toBe('a=1');
  });

  it('a Python file in UTF-7 is a finding in itself, and its secrets scan fails closed', async () => {
    const body = `# -*- coding: utf-7 -*-\n${utf7('import _pytest')}\nkey = "${utf7(FAKE_KEY)}"\n`;
    const { runner, rules, secrets, verdict } = await scanOf({ 'src/calc.py': body });
    expect(runner?.passed).toBe(false);
    expect(rules).toContain('source-encoding src/calc.py');
    expect(secrets).toMatchObject({ passed: false });
    expect(secrets?.message).toContain('secret scan incomplete');
    expect(verdict).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
  });

  it('reads a latin-1 Python file in latin-1, and finds what it adds', async () => {
    const { rules, runner } = await scanOf({ 'src/calc.py': '# -*- coding: latin-1 -*-\n# caf\xe9\nimport _pytest\n' });
    expect(runner?.passed).toBe(false);
    expect(rules).toContain('pytest-internals src/calc.py');
  });

  it('a UTF-16 file (binary to git) is read in UTF-16: its runner code and secrets are found', async () => {
    const text = `import _pytest\nkey = "${FAKE_KEY}"\n`;
    const { rules, secrets } = await scanOf({ 'src/calc.py': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]) });
    expect(rules).toContain('pytest-internals src/calc.py');
    expect(secrets?.message).toContain('aws-access-key-id in src/calc.py');
  });

  it("reads Python's lone \\r and JavaScript's U+2028 as the line breaks they are", async () => {
    const { rules } = await scanOf({
      'src/calc.py': 'def add(a, b):\n    return a + b\n# note\rimport _pytest\n',
      'src/slug.mjs': '// note\u2028process.reallyExit(0);\n',
    });
    expect(rules).toEqual(expect.arrayContaining(['pytest-internals src/calc.py', 'process-exit src/slug.mjs']));
  });
});

describe('source files whatever git thinks of their bytes', () => {
  it('a NUL byte in a JS comment is a finding, and the code around it is still read', async () => {
    const code = `// \0\nimport assert from 'node:assert/strict';\nfor (const k of Object.keys(assert)) assert[k] = () => {};\nconst key = "${FAKE_KEY}";\n`;
    const { diff, rules, secrets, verdict } = await scanOf({ 'src/slug.mjs': code });
    expect(diff.files.find((f) => f.path === 'src/slug.mjs')?.binary).toBe(true);
    expect(rules).toEqual(expect.arrayContaining(['nul-byte src/slug.mjs', 'runner-write src/slug.mjs']));
    expect(secrets?.message).toContain('aws-access-key-id in src/slug.mjs');
    expect(verdict).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
  });

  it('a source file git calls binary that the scan could not read fails runner_internals closed', () => {
    const over = { files: [], complete: false, incomplete: 'binary file src/slug.mjs is 9000000 bytes, over the 8388608-byte scan limit' };
    const checks = runChecks(input({ diff: diffOf([{ path: 'src/slug.mjs', binary: true, added: 0 }]), addedLines: over }));
    expect(checks.find((c) => c.id === 'runner_internals')).toMatchObject({ passed: false });
  });

  it('a source file git was told is binary (.gitattributes) is read all the same', async () => {
    const { rules } = await scanOf({ '.gitattributes': '*.py binary\n', 'src/calc.py': 'def add(a, b):\n    return a + b\nimport _pytest\n' });
    expect(rules).toContain('pytest-internals src/calc.py');
  });

  it('honest: a UTF-8 file with a BOM, a PNG beside the code, assert used as it is meant to be', async () => {
    const { runner, secrets, checks } = await scanOf({
      'src/calc.py': '\ufeff# -*- coding: utf-8 -*-\ndef add(a, b):\n    return a + b\n',
      'src/slug.mjs':
        "\ufeffimport assert from 'node:assert';\nexport const slug = (s) => { assert.equal(typeof s, 'string'); return Object.assign({}, { s }).s.toLowerCase(); };\n",
      'src/logo.png': PNG,
      'src/data/sample.zip': zipOf('a.csv', 'x,y\n'),
    });
    expect(runner).toMatchObject({ passed: true });
    expect(secrets).toMatchObject({ passed: true });
    expect(checks.filter((c) => !c.passed).map((c) => c.id)).toEqual([]);
  });
});

describe('reading the tree', () => {
  it('a store git cannot read fails the call, never the process (no EPIPE from the batch reader)', async () => {
    const patchFile = join(root, 'lone.patch');
    writeFileSync(patchFile, 'diff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n@@ -0,0 +1 @@\n+const x = 1;\n');
    // More paths than a pipe holds, so git exits before it has read them all.
    const many = Array.from({ length: 8000 }, (_, i) => ({ path: `src/generated/module-${i}.js` }));
    const scan = await readAddedLines(patchFile, diffOf([{ path: 'src/a.js' }, ...many]), { gitDir: join(root, 'no-such-repo'), tree: 'HEAD' });
    expect(scan.files.map((f) => f.path)).toEqual(['src/a.js']);
    expect(scan.complete).toBe(false);
  });
});

describe('code no scan opens', () => {
  it('a zip archive with a .py name is a finding', async () => {
    const { rules, verdict } = await scanOf({ 'src/helpers.py': zipOf('cx_impl.py', 'import _pytest\n') });
    expect(rules).toContain('import-archive src/helpers.py');
    expect(verdict).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
  });

  it('an archive where Python imports from, or named by the change, is a finding; data zips elsewhere are not', async () => {
    const zip = zipOf('cx_impl.py', 'x = 1\n');
    expect((await scanOf({ 'vendor.pyz': zip })).rules).toContain('import-archive vendor.pyz');
    expect((await scanOf({ 'plugins.zip': zip })).rules).toContain('import-archive plugins.zip');
    expect((await scanOf({ 'src/pkg/lib.egg': zip })).rules).toContain('import-archive src/pkg/lib.egg');
    const named = await scanOf({ 'src/pkg/blob.zip': zip, 'src/calc.py': 'import sys\nsys.path.insert(0, "src/pkg/blob.zip")\n' });
    expect(named.rules).toContain('import-archive src/pkg/blob.zip');
    expect((await scanOf({ 'src/pkg/data/blob.zip': zip })).rules).toEqual([]);
  });

  it('a .pth file that runs code or adds an archive, and compiled modules, are findings', async () => {
    const { rules } = await scanOf({
      'src/x.pth': 'import cx_impl\n',
      'src/y.pth': 'vendor/blob.zip\n',
      'src/calc.cpython-311-x86_64-linux-gnu.so': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0]),
      'src/__pycache__/calc.cpython-311.pyc': Buffer.from([0xa7, 0x0d, 0x0d, 0x0a, 0]),
    });
    expect(rules).toEqual(
      expect.arrayContaining([
        'import-archive src/x.pth',
        'import-archive src/y.pth',
        'compiled-module src/calc.cpython-311-x86_64-linux-gnu.so',
        'compiled-module src/__pycache__/calc.cpython-311.pyc',
      ]),
    );
  });
});
