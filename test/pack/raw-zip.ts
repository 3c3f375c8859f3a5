import { deflateRawSync } from 'node:zlib';

/**
 * Writes zip bytes by hand, for archives no well-behaved zip library would make: `../` and
 * absolute names, device modes, duplicate names, overlapping entries, lying sizes.
 */
export interface RawEntry {
  name: string | Buffer;
  data: Buffer;
  /** Unix mode including the file type bits; default a regular file 0644. */
  mode?: number;
  /** Deflate (8, default) or store (0). */
  method?: 0 | 8;
  /** General purpose flags; default 0x800 (UTF-8 names). */
  flags?: number;
  /** Point this entry's central record at another entry's local header (by index): overlapping data. */
  sameDataAs?: number;
  /** A local header that lies: another name, another uncompressed size than the central directory's. */
  localName?: string;
  localSize?: number;
  /** A CRC-32 in both headers other than the data's. */
  crc?: number;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const offsets: number[] = [];
  const records: Array<{ crc: number; compressed: number; size: number; method: number }> = [];
  let offset = 0;
  entries.forEach((entry) => {
    const name = Buffer.isBuffer(entry.name) ? entry.name : Buffer.from(entry.name, 'utf8');
    const method = entry.method ?? 8;
    const body = method === 8 ? deflateRawSync(entry.data) : entry.data;
    const crc = entry.crc ?? crc32(entry.data);
    const localName = entry.localName === undefined ? name : Buffer.from(entry.localName, 'utf8');
    const flags = entry.flags ?? 0x800;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(entry.localSize ?? entry.data.length, 22);
    local.writeUInt16LE(localName.length, 26);
    local.writeUInt16LE(0, 28);
    offsets.push(offset);
    records.push({ crc, compressed: body.length, size: entry.data.length, method });
    if (entry.sameDataAs === undefined) {
      locals.push(local, localName, body);
      offset += local.length + localName.length + body.length;
    }
  });
  entries.forEach((entry, i) => {
    const name = Buffer.isBuffer(entry.name) ? entry.name : Buffer.from(entry.name, 'utf8');
    const source = entry.sameDataAs ?? i;
    const record = records[source] as (typeof records)[number];
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix: the mode is in the external attributes
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.flags ?? 0x800, 8);
    central.writeUInt16LE(record.method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(record.crc, 16);
    central.writeUInt32LE(record.compressed, 20);
    central.writeUInt32LE(record.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offsets[source] as number, 42);
    centrals.push(central, name);
  });
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}
