/**
 * The fields of a task (or of `defaults`) that name files: what `pack create` copies and rewrites
 * to pack-local paths, and what `pack verify` checks are inside the pack. Inline oracle text (it
 * has a line break) names no file.
 */
export interface Reference {
  field: string;
  kind: 'file' | 'dir';
  value: string;
  set(value: string): void;
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Path-valued fields of one raw task or `defaults` object (not `repo`: see repoOf). */
export function fileReferences(item: Obj): Reference[] {
  const out: Reference[] = [];
  const add = (parent: unknown, key: string, field: string, kind: 'file' | 'dir', inlineAllowed = false): void => {
    if (!isObj(parent)) return;
    const value = parent[key];
    if (typeof value !== 'string' || value.length === 0) return;
    if (inlineAllowed && value.includes('\n')) return;
    out.push({ field, kind, value, set: (next) => (parent[key] = next) });
  };
  add(item, 'instruction_file', 'instruction_file', 'file');
  add(item.oracle, 'patch', 'oracle.patch', 'file', true);
  add(item.oracle, 'script', 'oracle.script', 'file', true);
  add(item.tests, 'files', 'tests.files', 'dir');
  add(item.held_out, 'path', 'held_out.path', 'dir');
  add(item.environment, 'dockerfile', 'environment.dockerfile', 'file');
  add(item.environment, 'context', 'environment.context', 'dir');
  return out;
}

export type RepoRef = { kind: 'path'; path: string } | { kind: 'git'; url: string; commit: string } | { kind: 'npm' } | undefined;

export function repoOf(item: Obj): RepoRef {
  const repo = item.repo;
  if (!isObj(repo)) return undefined;
  if (typeof repo.path === 'string') return { kind: 'path', path: repo.path };
  if (typeof repo.git === 'string' && typeof repo.commit === 'string') return { kind: 'git', url: repo.git, commit: repo.commit };
  if ('npm' in repo) return { kind: 'npm' };
  return undefined;
}

/** Fields that fetch from the network when a task runs: a pack cannot carry what they name. */
export function networkFields(item: Obj): string[] {
  const out: string[] = [];
  if (isObj(item.repo) && 'npm' in item.repo) out.push('repo.npm');
  if ('tests_from' in item) out.push('tests_from');
  if (isObj(item.oracle) && 'from_npm' in item.oracle) out.push('oracle.from_npm');
  return out;
}
