import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTree } from '../../src/infra/workspace/remove-tree.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/**
 * A nest of `depth` directories `d` (deeper than PATH_MAX past 2048), each made relative to the
 * last, with a symlink to `outside` and a directory of mode 000 at the bottom.
 */
function deepNest(root: string, depth: number, outside: string): void {
  const script = `const fs = require('fs'); process.chdir(process.argv[1]); for (let i = 0; i < ${depth}; i++) { fs.mkdirSync('d'); process.chdir('d'); } fs.writeFileSync('bottom.txt', 'x'); fs.symlinkSync(process.argv[2], 'outside'); fs.mkdirSync('locked', { mode: 0 });`;
  mkdirSync(root);
  execFileSync(process.execPath, ['-e', script, root, outside]);
}

describe('removeTree', () => {
  it('removes a nest deeper than PATH_MAX, which fs.rm cannot, and never follows a symlink in it', async () => {
    const root = tempDir();
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'keep\n');
    const tree = join(root, 'tree');
    deepNest(tree, 2100, outside);
    await expect(rm(tree, { recursive: true, force: true })).rejects.toThrow(/ENAMETOOLONG/);
    await removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep\n');
  });

  it('removes a tree whose name is not UTF-8, given as bytes, and only unlinks a symlink given as the path', async () => {
    const root = tempDir();
    const odd = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x64, 0xff, 0x0a])]);
    mkdirSync(odd);
    writeFileSync(Buffer.concat([odd, Buffer.from('/f')]), 'x');
    await removeTree(odd);
    expect(existsSync(odd)).toBe(false);
    const target = join(root, 'target');
    mkdirSync(target);
    writeFileSync(join(target, 'keep.txt'), 'keep\n');
    symlinkSync(target, join(root, 'link'));
    await removeTree(join(root, 'link'));
    expect(existsSync(join(root, 'link'))).toBe(false);
    expect(readFileSync(join(target, 'keep.txt'), 'utf8')).toBe('keep\n');
  });
});
