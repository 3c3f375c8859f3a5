/**
 * The bwrap probe's verdict, remembered per machine and Crucible version: every run otherwise
 * starts a sandbox before its first attempt (~50 ms, more under load) to learn what the last run
 * learnt. Only a working sandbox is remembered (a failure is probed again, so a fix shows at
 * once), and the entry is used only while its fingerprint holds: the same Crucible version, the
 * same bwrap binary (path, size, mtime, inode: an upgrade replaces it), the same Node, the same
 * boot, the same user-namespace settings.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { version } from '../../core/version.js';

export interface ProbeVerdict {
  version: string;
  path: string;
}

interface Entry extends ProbeVerdict {
  fingerprint: string;
}

const SETTINGS = [
  '/proc/sys/kernel/random/boot_id',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/user/max_user_namespaces',
];

/** What a remembered verdict depends on, as one digest; undefined when the binary cannot be looked at. */
export async function probeFingerprint(bwrapPath: string): Promise<string | undefined> {
  const info = await stat(bwrapPath).catch(() => undefined);
  if (info === undefined) return undefined;
  const settings = await Promise.all(SETTINGS.map((file) => readFile(file, 'utf8').catch(() => '')));
  const parts = {
    crucible: version(),
    bwrapPath,
    size: info.size,
    mtimeMs: info.mtimeMs,
    ino: info.ino,
    node: process.execPath,
    nodeVersion: process.version,
    settings,
  };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The remembered verdict for `bwrapPath`, when the cache file holds one whose fingerprint still holds. */
export async function readProbeCache(file: string, bwrapPath: string, fingerprint: string): Promise<ProbeVerdict | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const entry = JSON.parse(text) as Partial<Entry>;
    if (entry.fingerprint !== fingerprint || entry.path !== bwrapPath || typeof entry.version !== 'string') return undefined;
    return { version: entry.version, path: bwrapPath };
  } catch {
    return undefined;
  }
}

/**
 * Remembers a working sandbox. Only inside a state directory that exists already (its `cache/` is
 * made if need be): a command that then fails on bad input must not have created one. A state
 * directory that cannot be written only means the next run probes again.
 */
export async function writeProbeCache(file: string, verdict: ProbeVerdict, fingerprint: string): Promise<void> {
  const entry: Entry = { ...verdict, fingerprint };
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    await writeFile(temporary, `${JSON.stringify(entry)}\n`);
    await rename(temporary, file);
  } catch {
    // Not worth failing a run over: the probe simply runs again next time.
  }
}
