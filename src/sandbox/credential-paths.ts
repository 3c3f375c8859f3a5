import { readdirSync, type Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';

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

const found = new Map<string, ReadonlyArray<{ path: string; isDir: boolean }>>();

/**
 * Credential paths inside `root` (the root itself included), up to CREDENTIAL_SCAN_DEPTH levels
 * down. Host toolchain trees do not change during a run, so each root is walked once per process.
 */
export function credentialsWithin(root: string): ReadonlyArray<{ path: string; isDir: boolean }> {
  const known = found.get(root);
  if (known) return known;
  const hits: Array<{ path: string; isDir: boolean }> = [];
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
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
  found.set(root, hits);
  return hits;
}
