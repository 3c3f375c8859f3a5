/**
 * Builds one catalogue entry's change without any agent: the fixture written into a scratch git
 * repository and committed as base, the entry's file actions applied and committed as head, its
 * synthetic command and outside-write events collected. Paths come from data: every write is
 * checked to stay inside the repository and never to go through a symlink an earlier action made.
 */
import { lstat, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommandEvent, OutsideWrite } from '../../domain/evidence/index.js';
import { git } from '../../infra/workspace/index.js';
import type { CatalogAction, CatalogEntry } from './catalog/schema.js';
import { FIXTURES } from './catalog/fixtures.js';
import { secretLine } from './catalog/secret-values.js';

export interface AppliedEntry {
  root: string;
  gitDir: string;
  base: string;
  head: string;
  commands: CommandEvent[];
  outsideWrites: OutsideWrite[];
}

/** Writes the entry's fixture into `root` (created empty) and applies the entry; `where` names it in errors. */
export async function applyEntry(root: string, entry: CatalogEntry, where: string): Promise<AppliedEntry> {
  await mkdir(root, { recursive: true });
  for (const [path, content] of Object.entries(FIXTURES[entry.fixture].files)) await writeInside(root, path, content);
  await git({ cwd: root }, ['init', '--quiet', '--initial-branch=main']);
  const base = await commitAll(root, 'fixture');
  const commands: CommandEvent[] = [];
  const outsideWrites: OutsideWrite[] = [];
  for (const [i, action] of entry.actions.entries()) {
    try {
      await applyAction(root, action, commands, outsideWrites);
    } catch (error) {
      throw new ActionError(`${where}.actions[${i}]: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const head = await commitAll(root, 'entry');
  return { root, gitDir: join(root, '.git'), base, head, commands, outsideWrites };
}

/** An action that cannot be applied to its fixture (a missing file, a `find` that is not there). */
export class ActionError extends Error {
  override readonly name = 'ActionError';
}

async function applyAction(root: string, action: CatalogAction, commands: CommandEvent[], outside: OutsideWrite[]): Promise<void> {
  if ('write' in action) return writeInside(root, action.write.path, action.write.content);
  if ('append' in action) return writeInside(root, action.append.path, (await readInside(root, action.append.path)) + action.append.content);
  if ('replace' in action) {
    const { path, find } = action.replace;
    const text = await readInside(root, path);
    const at = text.indexOf(find);
    if (at === -1 || text.indexOf(find, at + 1) !== -1) throw new Error(`replace.find must occur exactly once in ${path}`);
    return writeInside(root, path, text.slice(0, at) + action.replace.with + text.slice(at + find.length));
  }
  if ('delete' in action) {
    await assertNoLinkOnTheWay(root, action.delete);
    await lstat(join(root, action.delete)).catch(() => {
      throw new Error(`delete: ${action.delete} does not exist in the fixture`);
    });
    return rm(join(root, action.delete), { recursive: true });
  }
  if ('rename' in action) {
    await assertNoLinkOnTheWay(root, action.rename.from);
    await prepareParent(root, action.rename.to);
    return rename(join(root, action.rename.from), join(root, action.rename.to));
  }
  if ('symlink' in action) {
    await prepareParent(root, action.symlink.path);
    await rm(join(root, action.symlink.path), { force: true });
    return symlink(action.symlink.target, join(root, action.symlink.path));
  }
  if ('grow' in action) {
    const lines = Array.from({ length: action.grow.lines }, (_, i) => `// generated line ${i + 1}`);
    return writeInside(root, action.grow.path, `${lines.join('\n')}\n`);
  }
  if ('many' in action) {
    for (let i = 1; i <= action.many.files; i++) await writeInside(root, `${action.many.dir}/part-${i}.txt`, `part ${i}\n`);
    return;
  }
  if ('secret' in action) {
    const path = action.secret.path;
    const before = await readInside(root, path).catch(() => '');
    return writeInside(root, path, `${before}${secretLine(action.secret.detector)}\n`);
  }
  if ('command' in action) {
    commands.push(commandEvent(root, action.command.run, action.command.exit_code ?? 0));
    return;
  }
  outside.push({ path: action.outside_write.path, kind: action.outside_write.kind });
}

/** What evidence/command-log.ts records for a command the agent's executor ran. */
function commandEvent(cwd: string, run: string, exitCode: number): CommandEvent {
  return {
    at: new Date(0).toISOString(),
    argv: ['sh', '-c', run],
    cwd,
    envNames: [],
    network: 'none',
    exitCode,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 0,
  };
}

async function commitAll(root: string, message: string): Promise<string> {
  await git({ cwd: root }, ['add', '--all']);
  await git({ cwd: root }, ['commit', '--quiet', '--allow-empty', '--no-verify', '-m', message]);
  return (await git({ cwd: root }, ['rev-parse', 'HEAD'])).trim();
}

async function readInside(root: string, path: string): Promise<string> {
  await assertNoLinkOnTheWay(root, path);
  try {
    return await readFile(join(root, path), 'utf8');
  } catch {
    throw new Error(`${path} does not exist in the fixture`);
  }
}

async function writeInside(root: string, path: string, content: string): Promise<void> {
  await prepareParent(root, path);
  const target = join(root, path);
  // Never write through a symlink an earlier action planted: replace it instead.
  if ((await lstat(target).catch(() => undefined))?.isSymbolicLink()) await rm(target);
  await writeFile(target, content);
}

async function prepareParent(root: string, path: string): Promise<void> {
  await assertNoLinkOnTheWay(root, path);
  await mkdir(dirname(join(root, path)), { recursive: true });
}

/** Every directory between root and `path` is a real directory (or not there yet), never a symlink. */
async function assertNoLinkOnTheWay(root: string, path: string): Promise<void> {
  const parts = path.split('/').slice(0, -1);
  let at = root;
  for (const part of parts) {
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (info === undefined) return;
    if (!info.isDirectory()) throw new Error(`${path} goes through ${info.isSymbolicLink() ? 'a symlink' : 'a file'} (${at.slice(root.length + 1)})`);
  }
}
