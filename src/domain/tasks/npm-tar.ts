import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** One entry of a package tarball, its path relative to the package root (`package/` stripped). */
export interface TarEntry {
  path: string;
  type: 'file' | 'dir';
  /** Permission bits only (setuid, setgid and sticky dropped). */
  mode: number;
  data: Buffer;
}

/** Bounds on what a tarball may unpack to: a registry answer is untrusted input. */
export const TAR_LIMITS = { unpackedBytes: 512 * 1024 * 1024, entries: 50_000 };

/** A tarball entry Crucible refuses to unpack; the message names the entry. */
export class TarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarError';
  }
}

const BLOCK = 512;

/**
 * Reads a gzipped npm package tarball. Only regular files and directories under `package/` are
 * accepted; a link, device, fifo, absolute path, `..` segment, or an entry outside `package/` makes
 * the whole tarball unusable (npm never packs such entries, so one is a sign of a hostile tarball).
 * Written by hand so that what is accepted is exactly what this function says.
 */
export function readPackageTarball(gz: Buffer): TarEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz, { maxOutputLength: TAR_LIMITS.unpackedBytes });
  } catch (error) {
    throw new TarError(`not a gzip stream within ${TAR_LIMITS.unpackedBytes} bytes (${(error as Error).message})`);
  }
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break; // end of archive
    if (!checksumOk(header)) throw new TarError(`corrupt tar header at byte ${offset}`);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const bodyStart = offset + BLOCK;
    if (bodyStart + size > tar.length) throw new TarError(`truncated entry at byte ${offset}`);
    const body = tar.subarray(bodyStart, bodyStart + size);
    offset = bodyStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') {
      paxPath = paxField(body, 'path') ?? paxPath;
      continue;
    }
    if (type === 'g') continue; // global pax header: comments, mtimes; no paths
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    const raw = paxPath ?? longName ?? headerName(header);
    paxPath = undefined;
    longName = undefined;
    const kind = type === '0' || type === '\0' || type === '7' ? 'file' : type === '5' ? 'dir' : undefined;
    if (kind === undefined) throw new TarError(`${raw}: ${TYPE_NAMES[type] ?? `entry type "${type}"`} (only regular files and directories are unpacked)`);
    const path = packagePath(raw);
    if (path === undefined) continue; // `package/` itself
    if (entries.length >= TAR_LIMITS.entries) throw new TarError(`more than ${TAR_LIMITS.entries} entries`);
    entries.push({ path, type: kind, mode: octal(header, 100, 8) & 0o777, data: kind === 'file' ? Buffer.from(body) : Buffer.alloc(0) });
  }
  return entries;
}

const TYPE_NAMES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a fifo',
};

/** The path below `package/`, or undefined for `package/` itself; throws for anything outside it. */
function packagePath(raw: string): string | undefined {
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw) || raw.includes('\\')) throw new TarError(`${raw}: absolute path`);
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new TarError(`${raw}: ".." in the path`);
  if (parts[0] !== 'package') throw new TarError(`${raw}: outside package/`);
  return parts.length === 1 ? undefined : parts.slice(1).join('/');
}

function headerName(header: Buffer): string {
  const name = cString(header, 0, 100);
  const magic = header.subarray(257, 262).toString('latin1');
  const prefix = magic === 'ustar' ? cString(header, 345, 155) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

function cString(buf: Buffer, start: number, length: number): string {
  const field = buf.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

function octal(buf: Buffer, start: number, length: number): number {
  const text = cString(buf, start, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError(`unreadable number "${text}" in a tar header`);
  return parseInt(text, 8);
}

function checksumOk(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  return octal(header, 148, 8) === sum;
}

/** A pax extended header's `key=value` record (records are `LEN key=value\n`). */
function paxField(body: Buffer, key: string): string | undefined {
  let value: string | undefined;
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space === -1) break;
    const len = parseInt(body.subarray(at, space).toString('latin1'), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const record = body.subarray(space + 1, at + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq !== -1 && record.slice(0, eq) === key) value = record.slice(eq + 1);
    at += len;
  }
  return value;
}

/**
 * Writes entries under `dest`. The tree is Crucible's own fresh directory and no entry is a link,
 * so no write can leave it; files keep their permission bits, readable and writable by the owner.
 */
export async function writeEntries(entries: readonly TarEntry[], dest: string): Promise<void> {
  for (const entry of entries) {
    const target = join(dest, entry.path);
    if (entry.type === 'dir') {
      await mkdir(target, { recursive: true });
    } else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, entry.data, { mode: (entry.mode | 0o600) & 0o755 });
    }
  }
}
