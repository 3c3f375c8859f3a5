import { writeFile } from 'node:fs/promises';
import type { DiffStats, FileChange, FileChangeKind } from '../../core/types/index.js';
import { git, gitBytes, gitToFile, type GitTarget } from '../../infra/workspace/index.js';

export interface DiffInput {
  /** The harness's baseline git directory (outside the workspace). */
  gitDir: string;
  /** The baseline's tree and the agent's captured tree. */
  from: string;
  to: string;
  /** Where to write the full patch (binary-safe), cut at `maxPatchBytes`. */
  patchFile: string;
  maxPatchBytes: number;
}

/**
 * What the agent changed, between two trees in the harness's object store: per-file statistics,
 * and the patch in `patchFile` (cut at its cap, which the stats then record).
 */
export async function collectDiff(input: DiffInput): Promise<DiffStats> {
  if (input.from === input.to) {
    await writeFile(input.patchFile, '');
    return { files: [], filesChanged: 0, added: 0, deleted: 0, patch: { bytes: 0, truncated: false, capBytes: input.maxPatchBytes } };
  }
  const target: GitTarget = { gitDir: input.gitDir };
  const range = ['diff-tree', '-r', '--find-renames', input.from, input.to];
  const [nameStatus, numstat, raw, patch] = await Promise.all([
    git(target, [...range, '--name-status', '-z']),
    git(target, [...range, '--numstat', '-z']),
    git(target, [...range, '--raw', '-z', '--no-abbrev']),
    gitToFile(target, [...range, '-p', '--binary', '--full-index'], input.patchFile, input.maxPatchBytes),
  ]);
  const symlinks = await symlinkTargets(target, parseRawSymlinks(raw));
  const files = mergeStats(parseNameStatus(nameStatus), parseNumstat(numstat)).map((f) => {
    const link = symlinks.get(f.path);
    return link === undefined ? f : { ...f, symlink: link };
  });
  return {
    files,
    filesChanged: files.length,
    added: files.reduce((sum, f) => sum + f.added, 0),
    deleted: files.reduce((sum, f) => sum + f.deleted, 0),
    patch: { bytes: patch.bytes, truncated: patch.truncated, capBytes: input.maxPatchBytes },
  };
}

interface NameStatus {
  path: string;
  oldPath?: string;
  kind: FileChangeKind;
}

function parseNameStatus(out: string): NameStatus[] {
  const fields = out.split('\0');
  const result: NameStatus[] = [];
  for (let i = 0; i < fields.length && fields[i];) {
    const status = fields[i++] ?? '';
    const letter = status[0];
    if (letter === 'R' || letter === 'C') {
      const oldPath = fields[i++] ?? '';
      const path = fields[i++] ?? '';
      result.push(letter === 'R' ? { path, oldPath, kind: 'renamed' } : { path, kind: 'added' });
    } else {
      const path = fields[i++] ?? '';
      result.push({ path, kind: letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified' });
    }
  }
  return result;
}

interface Numstat {
  added: number;
  deleted: number;
  binary: boolean;
}

/** `-z --numstat` puts renames as "added\tdeleted\t\0old\0new\0". */
function parseNumstat(out: string): Map<string, Numstat> {
  const fields = out.split('\0');
  const stats = new Map<string, Numstat>();
  for (let i = 0; i < fields.length && fields[i];) {
    const [added = '', deleted = '', path = ''] = (fields[i++] ?? '').split('\t');
    let key = path;
    if (path === '') {
      i++; // old path
      key = fields[i++] ?? '';
    }
    const binary = added === '-' && deleted === '-';
    stats.set(key, { added: binary ? 0 : Number(added), deleted: binary ? 0 : Number(deleted), binary });
  }
  return stats;
}

function mergeStats(changes: NameStatus[], numstat: Map<string, Numstat>): FileChange[] {
  return changes.map((change) => {
    const stat = numstat.get(change.path) ?? { added: 0, deleted: 0, binary: false };
    return { ...change, ...stat };
  });
}

/** git's mode for a symlink. */
const SYMLINK_MODE = '120000';
/** A symlink's target longer than this is cut: enough to judge where it points. */
const MAX_SYMLINK_TARGET = 1024;

/** Path → blob id of every symlink the change leaves (added, modified or renamed to), from `--raw -z` output. */
function parseRawSymlinks(out: string): Map<string, string> {
  const fields = out.split('\0');
  const links = new Map<string, string>();
  for (let i = 0; i < fields.length && fields[i];) {
    const [, newMode, , newBlob, status = ''] = (fields[i++] ?? '').split(' ');
    const letter = status[0];
    if (letter === 'R' || letter === 'C') i++;
    const path = fields[i++] ?? '';
    if (letter !== 'D' && newMode === SYMLINK_MODE && newBlob) links.set(path, newBlob);
  }
  return links;
}

/** Each symlink's target, read in one `git cat-file --batch` for all of them. */
async function symlinkTargets(target: GitTarget, blobs: Map<string, string>): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  if (blobs.size === 0) return targets;
  const paths = [...blobs.keys()];
  const out = await gitBytes(target, ['cat-file', '--batch'], { stdin: `${paths.map((p) => blobs.get(p)).join('\n')}\n` });
  let at = 0;
  for (const path of paths) {
    const headerEnd = out.indexOf(0x0a, at);
    if (headerEnd < 0) break;
    const size = Number(out.subarray(at, headerEnd).toString('utf8').split(' ')[2]);
    if (!Number.isInteger(size)) break;
    const body = out.subarray(headerEnd + 1, headerEnd + 1 + size);
    targets.set(path, body.subarray(0, MAX_SYMLINK_TARGET).toString('utf8'));
    at = headerEnd + 1 + size + 1;
  }
  return targets;
}
