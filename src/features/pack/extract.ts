import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { entryStream, type ArchiveEntry } from './archive.js';
import { PackVerificationError } from './errors.js';
import type { Inspected } from './verify.js';

/**
 * Writes a verified pack into `dest`, which must not exist: into a temp sibling first, renamed into
 * place at the end, so a failure leaves nothing behind. Each file is hashed again while it is
 * written (the archive could change between the passes); nothing extracted is ever run.
 */
export async function extractPack(inspected: Inspected, dest: string): Promise<string> {
  const target = resolve(dest);
  if (existsSync(target) || isLink(target)) throw new InputError(`${dest}: already exists (fix: import into a new directory)`);
  mkdirSync(dirname(target), { recursive: true });
  const temp = mkdtempSync(join(dirname(target), `.${basename(target)}.partial-`));
  try {
    for (const file of inspected.manifest.files) {
      if (file.type === 'symlink') continue;
      const out = join(temp, ...file.path.split('/'));
      mkdirSync(dirname(out), { recursive: true });
      const handle = await open(out, 'wx', file.type === 'exec' ? 0o755 : 0o644);
      const hash = createHash('sha256');
      try {
        for await (const chunk of await entryStream(inspected.archive.zip, inspected.entries.get(file.path) as ArchiveEntry)) {
          hash.update(chunk as Buffer);
          await handle.write(chunk as Buffer);
        }
      } finally {
        await handle.close();
      }
      if (hash.digest('hex') !== file.sha256)
        throw new PackVerificationError(`${file.path}: SHA-256 changed while extracting (the archive was modified during import)`);
    }
    // Symlinks last, after every directory exists: no file is ever written through one.
    for (const [path, linkTarget] of inspected.links) {
      const out = join(temp, ...path.split('/'));
      mkdirSync(dirname(out), { recursive: true });
      symlinkSync(linkTarget, out);
    }
    if (existsSync(target) || isLink(target)) throw new InputError(`${dest}: appeared while importing (fix: import into a new directory)`);
    renameSync(temp, target);
    return target;
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
