import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, type Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { version } from '../../core/version.js';

/**
 * Credential files and folders that are never shown in a sandbox, wherever a visible host tree
 * holds them: a toolchain root that happens to contain `credentials.toml`, an `etc/npmrc` with a
 * registry token, a `.ssh` or `.aws` beside the binaries. Matched by name (and for generic names,
 * by their parent), so the list says what each one is.
 */
const ANYWHERE = new Set([
  '.npmrc',
  'npmrc', // npm's global config, <prefix>/etc/npmrc: may hold registry tokens
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.aws',
  '.ssh',
  '.gnupg',
  '.kube',
  '.azure',
  'credentials.toml', // cargo's registry tokens
]);

/** Generic names that are credentials only inside a known parent. */
const UNDER: ReadonlyArray<{ parent: string; names: ReadonlySet<string> }> = [
  { parent: '.cargo', names: new Set(['credentials']) },
  { parent: '.config', names: new Set(['gh', 'gcloud', 'hub']) },
  { parent: '.docker', names: new Set(['config.json']) },
];

export function isCredentialPath(path: string): boolean {
  const name = basename(path);
  if (ANYWHERE.has(name)) return true;
  const parent = basename(dirname(path));
  return UNDER.some((rule) => rule.parent === parent && rule.names.has(name));
}

/**
 * How deep below a visible root credentials are looked for. Toolchain roots can hold a whole
 * interpreter (a pyenv `versions/` is ~100k entries), so the walk stops here; credentials live at
 * the top of a tool's directory (`.cargo/credentials.toml`, `<prefix>/etc/npmrc`, `.config/gh`).
 */
export const CREDENTIAL_SCAN_DEPTH = 4;

interface Walked {
  hits: ReadonlyArray<{ path: string; isDir: boolean }>;
  /** Every directory read, with its mtime: a name added or removed in one changes it. */
  dirs: ReadonlyArray<{ dir: string; mtimeMs: number }>;
}

const walked = new Map<string, Walked>();

function mtimeOf(dir: string): number {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * Credential paths inside `root` (the root itself included), up to CREDENTIAL_SCAN_DEPTH levels
 * down. A root is walked again only when a directory it read has changed since (a later
 * `npm config set --global` writes `<prefix>/etc/npmrc`): a stat per directory, not a walk, per exec.
 */
export function credentialsWithin(root: string): ReadonlyArray<{ path: string; isDir: boolean }> {
  const known = walked.get(root);
  if (known && known.dirs.every((d) => mtimeOf(d.dir) === d.mtimeMs)) return known.hits;
  const hits: Array<{ path: string; isDir: boolean }> = [];
  const dirs: Array<{ dir: string; mtimeMs: number }> = [];
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
    // Recorded even when unreadable or missing (-1): a root made later changes it and is walked then.
    dirs.push({ dir, mtimeMs: mtimeOf(dir) });
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (isCredentialPath(path)) hits.push({ path, isDir: entry.isDirectory() });
      else if (entry.isDirectory() && depth < CREDENTIAL_SCAN_DEPTH) walk(path, depth + 1);
    }
  };
  if (isCredentialPath(root)) hits.push({ path: root, isDir: true });
  else walk(root, 1);
  walked.set(root, { hits, dirs });
  if (scanFile !== undefined) saveScans(scanFile);
  return hits;
}

/**
 * Where the walks are remembered across processes: a toolchain root with an interpreter in it
 * takes a walk of thousands of directories (~150 ms here), every run, to find what the last run
 * found. A remembered walk is used exactly as one made earlier in this process: only while every
 * directory it read still has the mtime it had. The file lies in the state directory's cache,
 * which no sandbox sees; one written by another Crucible version is not read.
 */
let scanFile: string | undefined;

interface ScanFile {
  version: string;
  depth: number;
  roots: Record<string, Walked>;
}

/** Reads the walks remembered in `file` (once per file) and remembers every later walk there. */
export function rememberCredentialScans(file: string): void {
  if (scanFile === file) return;
  scanFile = file;
  let saved: Partial<ScanFile>;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<ScanFile>;
  } catch {
    return;
  }
  if (saved.version !== version() || saved.depth !== CREDENTIAL_SCAN_DEPTH || typeof saved.roots !== 'object' || saved.roots === null) return;
  for (const [root, scan] of Object.entries(saved.roots)) if (!walked.has(root) && isWalked(scan)) walked.set(root, scan);
}

function isWalked(value: unknown): value is Walked {
  const scan = value as Partial<Walked> | null;
  return (
    Array.isArray(scan?.hits) &&
    Array.isArray(scan.dirs) &&
    scan.hits.every((h: Partial<Walked['hits'][number]>) => typeof h?.path === 'string' && typeof h.isDir === 'boolean') &&
    scan.dirs.every((d: Partial<Walked['dirs'][number]>) => typeof d?.dir === 'string' && typeof d.mtimeMs === 'number')
  );
}

/** Only inside a state directory that exists (its `cache/` made if need be); a failed write only means the next run walks again. */
function saveScans(file: string): void {
  const content: ScanFile = { version: version(), depth: CREDENTIAL_SCAN_DEPTH, roots: Object.fromEntries(walked) };
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    try {
      mkdirSync(dirname(file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    writeFileSync(temporary, JSON.stringify(content));
    renameSync(temporary, file);
  } catch {
    // Not worth failing a command over.
  }
}
