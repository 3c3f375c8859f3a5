import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { InputError } from '../../core/errors.js';
import { entryStream, openArchive, readEntry, type ArchiveEntry, type OpenArchive } from './archive.js';
import { PackVerificationError } from './errors.js';
import { DEFAULT_PACK_LIMITS, MAX_MANIFEST_BYTES, MAX_SYMLINK_TARGET_BYTES, MAX_TASKSET_IN_PACK_BYTES, type PackLimits } from './limits.js';
import { MANIFEST_NAME, parseManifest, sha256, type PackManifest } from './manifest.js';
import { resolveInPack } from './names.js';
import { checkPackTaskSet } from './pack-taskset.js';
import { readSignatureFile, signaturePathFor, type PackSignature } from './signatures.js';
import { enforceTrust } from './trust.js';
import type { PackVerifyOptions } from './index.js';

/** A verified pack still open: import extracts from the very file descriptor that was verified. */
export interface Inspected {
  archive: OpenArchive;
  manifest: PackManifest;
  rootDigest: string;
  /** Manifest entries by path, with their archive entry. */
  entries: Map<string, ArchiveEntry>;
  /** Symlink path → target, checked to stay inside the pack. */
  links: Map<string, string>;
  /** Trusted key ids whose signatures verified (empty without a trust policy). */
  signedBy: string[];
}

/**
 * Everything verify checks, in order: the archive's structure (archive.ts), pack.json's schema,
 * that the entries and the manifest list the same files, every file's size and SHA-256, symlink
 * targets, the task set, then signatures against the trust policy. Nothing is written.
 */
export async function inspectPack(archivePath: string, options: PackVerifyOptions): Promise<Inspected> {
  const limits: PackLimits = { ...DEFAULT_PACK_LIMITS, ...options.limits };
  const archive = await openArchive(archivePath, limits);
  try {
    if (options.archiveDigest !== undefined && options.archiveDigest !== archive.archiveDigest) {
      throw new PackVerificationError(
        `${archivePath}: archive SHA-256 is ${archive.archiveDigest}, the index says ${options.archiveDigest} (the file was changed or replaced)`,
      );
    }
    const byName = new Map(archive.entries.map((e) => [e.name, e]));
    const manifestEntry = byName.get(MANIFEST_NAME);
    if (manifestEntry === undefined) throw new InputError(`${archivePath}: no ${MANIFEST_NAME} (fix: pass a pack made by crucible pack create)`);
    if (manifestEntry.type !== 'file') throw new InputError(`${archivePath}: ${MANIFEST_NAME} is not a regular file`);
    const manifestBytes = await readEntry(archivePath, archive.zip, manifestEntry, MAX_MANIFEST_BYTES);
    const manifest = parseManifest(manifestBytes, archivePath);
    const rootDigest = sha256(manifestBytes);

    const entries = new Map<string, ArchiveEntry>();
    for (const file of manifest.files) {
      const entry = byName.get(file.path);
      if (file.path === MANIFEST_NAME) throw new InputError(`${archivePath}: ${MANIFEST_NAME} lists itself`);
      if (entries.has(file.path)) throw new InputError(`${archivePath}: ${MANIFEST_NAME} lists ${file.path} twice`);
      if (entry === undefined) throw new PackVerificationError(`${archivePath}: ${file.path} is in ${MANIFEST_NAME} but missing from the archive`);
      if (entry.type !== file.type)
        throw new PackVerificationError(`${archivePath}: ${file.path} is a ${entry.type} in the archive, a ${file.type} in ${MANIFEST_NAME}`);
      if (entry.size !== file.size) throw new PackVerificationError(`${archivePath}: ${file.path} is ${entry.size} bytes, ${MANIFEST_NAME} says ${file.size}`);
      entries.set(file.path, entry);
    }
    for (const entry of archive.entries) {
      if (entry.name !== MANIFEST_NAME && !entries.has(entry.name))
        throw new PackVerificationError(`${archivePath}: ${entry.name} is in the archive but not in ${MANIFEST_NAME}`);
    }

    const links = new Map<string, string>();
    for (const file of manifest.files) {
      const entry = entries.get(file.path) as ArchiveEntry;
      if (file.type === 'symlink') {
        const target = await readEntry(archivePath, archive.zip, entry, MAX_SYMLINK_TARGET_BYTES);
        if (sha256(target) !== file.sha256) throw new PackVerificationError(`${archivePath}: ${file.path}: SHA-256 does not match ${MANIFEST_NAME} (altered?)`);
        // A NUL ends the path for the kernel but not for a zip tool or a JSON reader: one link, several readings.
        if (target.includes(0))
          throw new InputError(`${archivePath}: symlink ${file.path}: its target holds a NUL byte (rejected: every tool must read the same link)`);
        const text = target.toString('utf8');
        if (!Buffer.from(text, 'utf8').equals(target)) throw new InputError(`${archivePath}: symlink ${file.path}: its target is not UTF-8 (rejected)`);
        if (text === '') throw new InputError(`${archivePath}: symlink ${file.path}: its target is empty (rejected)`);
        links.set(file.path, text);
      } else {
        const digest = await hashEntry(archivePath, archive, entry);
        if (digest !== file.sha256) throw new PackVerificationError(`${archivePath}: ${file.path}: SHA-256 does not match ${MANIFEST_NAME} (altered?)`);
      }
    }
    for (const [path, target] of links) {
      if (resolveInPack(path, target, links) === undefined)
        throw new InputError(`${archivePath}: symlink ${path} -> ${target} points outside the pack (rejected)`);
    }

    const tasksetEntry = entries.get(manifest.taskset);
    if (tasksetEntry === undefined || tasksetEntry.type === 'symlink')
      throw new InputError(`${archivePath}: ${MANIFEST_NAME} taskset: ${manifest.taskset} is not a regular file of the pack`);
    const text = (await readEntry(archivePath, archive.zip, tasksetEntry, MAX_TASKSET_IN_PACK_BYTES)).toString('utf8');
    const dirs = new Set<string>();
    for (const path of entries.keys()) {
      const parts = path.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    }
    checkPackTaskSet(`${archivePath}:${manifest.taskset}`, manifest.taskset, text, {
      hasFile: (p) => entries.has(p),
      hasDir: (p) => dirs.has(p),
    });

    const signedBy =
      options.trust === undefined ? [] : enforceTrust(archivePath, rootDigest, loadSignatures(archivePath, options.signatureFiles), options.trust);
    return { archive, manifest, rootDigest, entries, links, signedBy };
  } catch (error) {
    archive.close();
    throw error;
  }
}

function loadSignatures(archive: string, files: readonly string[] | undefined): PackSignature[] {
  const list = files ?? (existsSync(signaturePathFor(archive)) ? [signaturePathFor(archive)] : []);
  return list.flatMap((file) => readSignatureFile(file).signatures);
}

async function hashEntry(archivePath: string, archive: OpenArchive, entry: ArchiveEntry): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of await entryStream(archive.zip, entry)) hash.update(chunk as Buffer);
  } catch (error) {
    // A size or CRC the data does not match is a malformed archive, like a bad name: exit 2.
    throw new InputError(`${archivePath}: entry ${JSON.stringify(entry.name)}: corrupt data (${(error as Error).message})`);
  }
  return hash.digest('hex');
}
