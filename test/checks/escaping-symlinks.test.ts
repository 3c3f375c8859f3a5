import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forbiddenPathsCheck, escapesWorkspace } from '../../src/domain/checks/forbidden-paths.js';
import { collectDiff } from '../../src/domain/evidence/diff.js';
import { diffOf, input } from './helpers.js';

describe('symlinks that leave the workspace', () => {
  it('tells a link out of the repo from one that stays inside', () => {
    const out = ['/etc/passwd', '../../x', 'a/../../../x', '../..', 'C:/Windows', '..\\..\\x'];
    const inside = ['calc.mjs', '../calc.mjs', './a/b', 'a/../b'];
    for (const target of out) expect(escapesWorkspace({ path: 'src/link', symlink: target }), target).toBe(true);
    for (const target of inside) expect(escapesWorkspace({ path: 'src/link', symlink: target }), target).toBe(false);
    expect(escapesWorkspace({ path: 'top', symlink: '../x' })).toBe(true);
    expect(escapesWorkspace({ path: 'src/plain.mjs' })).toBe(false);
  });

  it('fails forbidden_paths whatever the policy lists, and passes a link that stays inside', () => {
    const escaping = forbiddenPathsCheck.run(input({ diff: diffOf([{ path: 'src/hosts.mjs', kind: 'added', symlink: '/etc/passwd' }]) }));
    expect(escaping.passed).toBe(false);
    expect(escaping.message).toContain('src/hosts.mjs (a symlink to /etc/passwd, outside the workspace)');
    const inside = forbiddenPathsCheck.run(input({ diff: diffOf([{ path: 'src/arith.mjs', kind: 'added', symlink: 'calc.mjs' }]) }));
    expect(inside.passed).toBe(true);
  });

  const root = mkdtempSync(join(tmpdir(), 'crucible-symlink-diff-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('the diff records the target of every symlink the change leaves, and none for deleted ones', async () => {
    const repo = join(root, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    const g = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    g('init', '-q');
    writeFileSync(join(repo, 'src', 'calc.mjs'), 'export const x = 1;\n');
    symlinkSync('calc.mjs', join(repo, 'src', 'old-link'));
    g('add', '-A');
    g('commit', '-qm', 'base');
    const from = g('rev-parse', 'HEAD^{tree}');
    symlinkSync('/etc/passwd', join(repo, 'src', 'hosts.mjs'));
    symlinkSync('../../etc', join(repo, 'src', 'up'));
    rmSync(join(repo, 'src', 'old-link'));
    writeFileSync(join(repo, 'src', 'calc.mjs'), 'export const x = 2;\n');
    g('add', '-A');
    g('commit', '-qm', 'change');
    const to = g('rev-parse', 'HEAD^{tree}');
    const diff = await collectDiff({ gitDir: join(repo, '.git'), from, to, patchFile: join(root, 'diff.patch'), maxPatchBytes: 1024 * 1024 });
    const byPath = new Map(diff.files.map((f) => [f.path, f]));
    expect(byPath.get('src/hosts.mjs')?.symlink).toBe('/etc/passwd');
    expect(byPath.get('src/up')?.symlink).toBe('../../etc');
    expect(byPath.get('src/old-link')?.kind).toBe('deleted');
    expect(byPath.get('src/old-link')?.symlink).toBeUndefined();
    expect(byPath.get('src/calc.mjs')?.symlink).toBeUndefined();
    expect(
      diff.files
        .filter(escapesWorkspace)
        .map((f) => f.path)
        .sort(),
    ).toEqual(['src/hosts.mjs', 'src/up']);
  });
});
