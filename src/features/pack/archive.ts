import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { InputError } from '../../core/errors.js';
import type { PackLimits } from './limits.js';
import { badPackPath, decodeEntryName, foldedName } from './names.js';

/** One entry of a pack archive, its name and kind checked; its data is not read yet. */
export interface ArchiveEntry {
  name: string;
  type: 'file' | 'exec' | 'symlink';
  size: number;
  raw: yauzl.Entry;
}

/** An archive open for reading by file descriptor: every pass reads the same inode. */
export interface OpenArchive {
  zip: yauzl.ZipFile;
  entries: ArchiveEntry[];
  archiveDigest: string;
  close(): void;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const UNIX = 3;
const UNICODE_PATH_EXTRA = 0x7075;

/**
 * Opens `archive` and checks its central directory without extracting anything: names, kinds,
 * duplicates, sizes, ratios, overlaps. Throws an InputError naming the first problem.
 */
export async function openArchive(archive: string, limits: PackLimits): Promise<OpenArchive> {
  let fd: number;
  try {
    fd = openSync(archive, 'r');
  } catch (error) {
    throw new InputError(`${archive}: cannot open the pack (${(error as NodeJS.ErrnoException).code ?? 'error'}) (fix: check the path)`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new InputError(`${archive}: not a regular file (fix: pass the .crucible.zip file)`);
    if (stat.size > limits.maxArchiveBytes) throw new InputError(`${archive}: ${stat.size} bytes, over the ${limits.maxArchiveBytes}-byte limit for a pack`);
    const archiveDigest = digestFd(fd, stat.size);
    let zip: yauzl.ZipFile;
    try {
      zip = await yauzl.fromFdPromise(fd, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true, strictFileNames: true });
    } catch (error) {
      throw new InputError(`${archive}: not a zip archive (${(error as Error).message}) (fix: pass a pack made by crucible pack create)`);
    }
    if (zip.entryCount > limits.maxEntries) throw new InputError(`${archive}: ${zip.entryCount} entries, over the limit of ${limits.maxEntries}`);
    const entries = await readEntries(archive, zip, limits);
    checkLocalHeaders(archive, fd, entries);
    return { zip, entries, archiveDigest, close: () => closeSync(fd) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function digestFd(fd: number, size: number): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(1024 * 1024);
  let position = 0;
  while (position < size) {
    const read = readSync(fd, buffer, 0, buffer.length, position);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
    position += read;
  }
  return hash.digest('hex');
}

function readEntries(archive: string, zip: yauzl.ZipFile, limits: PackLimits): Promise<ArchiveEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: ArchiveEntry[] = [];
    const exact = new Set<string>();
    const folded = new Map<string, string>();
    let total = 0;
    const fail = (problem: string): void => {
      zip.removeAllListeners('entry');
      reject(new InputError(`${archive}: ${problem}`));
    };
    zip.on('error', (error: Error) => reject(new InputError(`${archive}: unreadable zip (${error.message})`)));
    zip.on('entry', (raw: yauzl.Entry) => {
      const name = decodeEntryName(raw.fileNameRaw, (raw.generalPurposeBitFlag & 0x800) !== 0);
      const shown = name === undefined ? JSON.stringify(raw.fileNameRaw.toString('latin1')) : JSON.stringify(name);
      if (name === undefined) return fail(`entry ${shown}: name is not UTF-8 (rejected)`);
      const bad = badPackPath(name);
      if (bad !== undefined) return fail(`entry ${shown}: ${bad} (rejected: a pack path is relative and stays inside the pack)`);
      if (raw.extraFields.some((f) => f.id === UNICODE_PATH_EXTRA))
        return fail(`entry ${shown}: has a second (Unicode path) name (rejected: one entry, one name)`);
      if (exact.has(name)) return fail(`entry ${shown}: duplicate name (rejected)`);
      const key = foldedName(name);
      const other = folded.get(key);
      if (other !== undefined)
        return fail(`entry ${shown}: same name as ${JSON.stringify(other)} on a case-insensitive or Unicode-normalizing filesystem (rejected)`);
      exact.add(name);
      folded.set(key, name);
      if (raw.isEncrypted()) return fail(`entry ${shown}: encrypted (rejected)`);
      if (raw.compressionMethod !== 0 && raw.compressionMethod !== 8)
        return fail(`entry ${shown}: compression method ${raw.compressionMethod} (only stored and deflate are read)`);
      const type = entryType(raw);
      if (typeof type !== 'string') return fail(`entry ${shown}: ${type.problem} (rejected: packs hold regular files and relative symlinks only)`);
      if (raw.uncompressedSize > limits.maxEntryBytes)
        return fail(`entry ${shown}: ${raw.uncompressedSize} bytes uncompressed, over the ${limits.maxEntryBytes}-byte limit per file (zip bomb?)`);
      if (raw.uncompressedSize > limits.ratioFloorBytes && raw.uncompressedSize > limits.maxRatio * Math.max(1, raw.compressedSize)) {
        return fail(
          `entry ${shown}: compression ratio ${Math.round(raw.uncompressedSize / Math.max(1, raw.compressedSize))}:1, over the ${limits.maxRatio}:1 limit (zip bomb?)`,
        );
      }
      total += raw.uncompressedSize;
      if (total > limits.maxTotalBytes) return fail(`entries total over ${limits.maxTotalBytes} bytes uncompressed, the limit for a pack (zip bomb?)`);
      entries.push({ name, type, size: raw.uncompressedSize, raw });
      zip.readEntry();
    });
    zip.on('end', () => {
      const problem = overlap(entries) ?? prefixClash(entries);
      if (problem !== undefined) return fail(problem);
      resolve(entries);
    });
    zip.readEntry();
  });
}

function entryType(raw: yauzl.Entry): ArchiveEntry['type'] | { problem: string } {
  // Archives made elsewhere than Unix carry no mode: their entries are plain files.
  if (raw.versionMadeBy >> 8 !== UNIX) return 'file';
  const mode = raw.externalFileAttributes >>> 16;
  const kind = mode & S_IFMT;
  if (mode & 0o7000) return { problem: `mode ${mode.toString(8)} has setuid, setgid or sticky bits` };
  if (kind === S_IFLNK) return 'symlink';
  if (kind === S_IFDIR) return { problem: 'a directory entry' };
  if (kind === S_IFREG || kind === 0) return mode & 0o111 ? 'exec' : 'file';
  const names: Record<number, string> = { 0o020000: 'a character device', 0o060000: 'a block device', 0o010000: 'a FIFO', 0o140000: 'a socket' };
  return { problem: names[kind] ?? `an unknown file type (mode ${mode.toString(8)})` };
}

/** Entries whose data ranges overlap share bytes: the classic way to make a small zip decompress huge. */
function overlap(entries: ArchiveEntry[]): string | undefined {
  const ranges = entries
    .map((e) => ({
      name: e.name,
      start: e.raw.relativeOffsetOfLocalHeader,
      end: e.raw.relativeOffsetOfLocalHeader + 30 + e.raw.fileNameLength + e.raw.compressedSize,
    }))
    .sort((a, b) => a.start - b.start);
  for (let i = 1; i < ranges.length; i++) {
    const prev = ranges[i - 1];
    const next = ranges[i];
    if (prev && next && next.start < prev.end)
      return `entry ${JSON.stringify(next.name)} overlaps ${JSON.stringify(prev.name)} in the archive (rejected: zip bomb)`;
  }
  return undefined;
}

/** A file that is also another entry's directory (`a` and `a/b`) would have the second written through the first. */
function prefixClash(entries: ArchiveEntry[]): string | undefined {
  const names = new Map(entries.map((e) => [foldedName(e.name), e.name]));
  for (const entry of entries) {
    const parts = foldedName(entry.name).split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = names.get(parts.slice(0, i).join('/'));
      if (parent !== undefined) return `entry ${JSON.stringify(entry.name)} lies under ${JSON.stringify(parent)}, which is a file or symlink (rejected)`;
    }
  }
  return undefined;
}

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR_FLAG = 0x8;
const ZIP64_SIZE = 0xffffffff;

/**
 * Each entry's local header says what its central-directory record says: the same name bytes,
 * method, CRC-32 and sizes. Tools disagree on which of the two they read (yauzl the central one,
 * streaming unzippers the local one), so a pack where they differ would be one archive to verify
 * and another to someone else's extractor. With a data descriptor (bit 3) the local CRC and sizes
 * may be zero; zip64 sizes are left to the reader.
 */
function checkLocalHeaders(archive: string, fd: number, entries: readonly ArchiveEntry[]): void {
  for (const entry of entries) {
    const raw = entry.raw;
    const shown = JSON.stringify(entry.name);
    const fail = (problem: string): never => {
      throw new InputError(`${archive}: entry ${shown}: ${problem} (rejected: its local header and the central directory must agree)`);
    };
    const header = Buffer.alloc(30);
    if (readSync(fd, header, 0, 30, raw.relativeOffsetOfLocalHeader) !== 30 || header.readUInt32LE(0) !== LOCAL_HEADER)
      fail('no local header where the central directory points');
    const nameLength = header.readUInt16LE(26);
    const name = Buffer.alloc(nameLength);
    if (readSync(fd, name, 0, nameLength, raw.relativeOffsetOfLocalHeader + 30) !== nameLength) fail('its local header is cut short');
    if (!name.equals(raw.fileNameRaw)) fail(`its local header names it ${JSON.stringify(name.toString('utf8'))}`);
    if (header.readUInt16LE(8) !== raw.compressionMethod)
      fail(`its local header says compression method ${header.readUInt16LE(8)}, the central directory ${raw.compressionMethod}`);
    const described = (header.readUInt16LE(6) & DATA_DESCRIPTOR_FLAG) !== 0;
    const fields: Array<[string, number, number]> = [
      ['bytes uncompressed', header.readUInt32LE(22), raw.uncompressedSize],
      ['bytes compressed', header.readUInt32LE(18), raw.compressedSize],
    ];
    for (const [what, local, central] of fields) {
      if (local === ZIP64_SIZE || (described && local === 0)) continue;
      if (local !== central) fail(`its local header says ${local} ${what}, the central directory ${central}`);
    }
    const crc = header.readUInt32LE(14);
    if (!(described && crc === 0) && crc !== raw.crc32 >>> 0) fail(`its local header says CRC-32 ${hex(crc)}, the central directory ${hex(raw.crc32)}`);
  }
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/**
 * The entry's data as a stream. yauzl checks that its size is the declared one but not its
 * CRC-32: this does, failing the stream at its end when the data's CRC differs from the archive's.
 */
export async function entryStream(zip: yauzl.ZipFile, entry: ArchiveEntry): Promise<Readable> {
  const data = await zip.openReadStreamPromise(entry.raw);
  const expected = entry.raw.crc32 >>> 0;
  let crc = 0;
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      crc = crc32(chunk, crc);
      callback(null, chunk);
    },
    flush(callback) {
      callback(crc >>> 0 === expected ? null : new Error(`CRC-32 is ${hex(crc)}, the archive says ${hex(expected)}`));
    },
  });
  data.on('error', (error: Error) => checked.destroy(error));
  return data.pipe(checked);
}

/** Reads a small entry whole; more than `max` bytes is an InputError. */
export async function readEntry(archive: string, zip: yauzl.ZipFile, entry: ArchiveEntry, max: number): Promise<Buffer> {
  if (entry.size > max) throw new InputError(`${archive}: entry ${JSON.stringify(entry.name)} is ${entry.size} bytes, over the ${max}-byte limit for it`);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of await entryStream(zip, entry)) {
      length += (chunk as Buffer).length;
      if (length > max) throw new InputError(`${archive}: entry ${JSON.stringify(entry.name)} is over the ${max}-byte limit for it`);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${archive}: entry ${JSON.stringify(entry.name)}: corrupt data (${(error as Error).message})`);
  }
  return Buffer.concat(chunks);
}
