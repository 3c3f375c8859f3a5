import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import yazl from 'yazl';
import { ConfigError, InputError } from '../../core/errors.js';
import { loadTaskSet } from '../../domain/config/index.js';
import { YamlSource } from '../../core/input/index.js';
import { taskRepoKey } from '../../domain/tasks/index.js';
import { collectDir, collectGitCommit, type PackFile } from './collect.js';
import { compareNames, MANIFEST_NAME, PACK_FORMAT, PACK_FORMAT_VERSION, serializeManifest, sha256, type PackManifest } from './manifest.js';
import { badPackPath, foldedName, resolveInPack } from './names.js';
import { fileReferences, networkFields, repoOf } from './references.js';

export const PACK_TASKSET = 'tasks.yaml';

/** Every entry's timestamp: the DOS epoch, in local fields so the bytes do not depend on the time zone. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);
const MODES = { file: 0o100644, exec: 0o100755, symlink: 0o120777 } as const;

export interface CreatedPack {
  archive: string;
  rootDigest: string;
  files: number;
}

type Obj = Record<string, unknown>;

/**
 * Packs a task set: its repos under repos/, the other files it names under files/, the task set
 * rewritten to those pack-local paths as tasks.yaml, and pack.json. The zip is normalized (sorted
 * entries, fixed timestamps and modes, no extra fields), so the same input gives the same bytes.
 */
export async function createPack(tasksetPath: string, output: string): Promise<CreatedPack> {
  const loaded = loadTaskSet(tasksetPath); // the task set must be valid before it is packed
  const file = loaded.file;
  const dir = dirname(file);
  const raw = YamlSource.parse(tasksetPath, readFileSync(file, 'utf8')).toJS() as Obj;
  if (raw.agents !== undefined) {
    throw new ConfigError(
      { file: tasksetPath, field: 'agents' },
      "a pack may not declare agent profiles (they could replace an agent's command)",
      'move them to a separate --agents file',
    );
  }
  delete raw.$schema;

  const files = new Map<string, PackFile>();
  const repoDirs = new Map<string, string>(); // source identity → pack dir
  const usedRepoNames = new Set<string>();
  const paths = new Map<string, string>(); // absolute source → pack path
  let external = 0;

  const repoName = (wanted: string): string => {
    let name = `repos/${safeSegment(wanted)}`;
    for (let n = 2; usedRepoNames.has(foldedName(name)); n++) name = `repos/${safeSegment(wanted)}-${n}`;
    usedRepoNames.add(foldedName(name));
    return name;
  };
  const mapPath = (abs: string, kind: 'file' | 'dir', field: string): string => {
    const known = paths.get(abs);
    if (known !== undefined) return known;
    const rel = relative(dir, abs);
    const inside = rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
    const packPath =
      inside && badPackPath(rel.split(sep).join('/')) === undefined
        ? `files/${rel.split(sep).join('/')}`
        : `files/external/${++external}-${safeSegment(basename(abs))}`;
    paths.set(abs, packPath);
    if (kind === 'dir') collectDir(abs, packPath, files, { repo: false });
    else if (existsSync(abs)) files.set(packPath, { type: 'file', data: readFileSync(abs) });
    else throw new InputError(`${tasksetPath}: ${field}: file not found: ${abs}`);
    return packPath;
  };

  const rewrite = async (item: Obj, at: string): Promise<void> => {
    const network = networkFields(item)[0];
    if (network !== undefined)
      throw new InputError(
        `${tasksetPath}: ${at}.${network}: fetched from the network when the task runs, so it cannot be packed (fix: use a local path: or git: repo with the files the task needs)`,
      );
    const repo = repoOf(item);
    if (repo?.kind === 'path') {
      const abs = resolve(dir, repo.path);
      let packDir = repoDirs.get(`path:${abs}`);
      if (packDir === undefined) {
        packDir = repoName(basename(abs));
        repoDirs.set(`path:${abs}`, packDir);
        collectDir(abs, packDir, files, { repo: true });
      }
      item.repo = { path: packDir };
    } else if (repo?.kind === 'git') {
      const local = localGitPath(repo.url, dir);
      if (local === undefined) {
        throw new InputError(
          `${tasksetPath}: ${at}.repo.git: ${repo.url} is a remote repository; a pack holds local sources only (fix: clone it and point repo.git at the clone)`,
        );
      }
      const key = `git:${local}\0${repo.commit}`;
      let packDir = repoDirs.get(key);
      if (packDir === undefined) {
        let chosen = '';
        await collectGitCommit(
          local,
          repo.commit,
          (sha) => (chosen = repoName(`${basename(local).replace(/\.git$/, '')}-${sha.slice(0, 12)}`)),
          files,
          `${tasksetPath}: ${at}.repo.git`,
        );
        packDir = chosen;
        repoDirs.set(key, packDir);
      }
      item.repo = { path: packDir };
    }
    // A Dockerfile is built with its context: pack the whole context, the Dockerfile at its place in it.
    const env = item.environment as Obj | undefined;
    if (env && typeof env.dockerfile === 'string') {
      const dockerfile = resolve(dir, env.dockerfile);
      const context = typeof env.context === 'string' ? resolve(dir, env.context) : dirname(dockerfile);
      const contextPack = mapPath(context, 'dir', `${at}.environment.context`);
      env.dockerfile = `${contextPack}/${relative(context, dockerfile).split(sep).join('/')}`;
      if (typeof env.context === 'string') env.context = contextPack;
    }
    for (const ref of fileReferences(item)) {
      if (ref.field.startsWith('environment.')) continue;
      ref.set(mapPath(resolve(dir, ref.value), ref.kind, `${at}.${ref.field}`));
    }
  };

  if (raw.defaults && typeof raw.defaults === 'object') await rewrite(raw.defaults as Obj, 'defaults');
  const tasks = raw.tasks as Obj[];
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[i] as Obj;
    const loadedTask = loaded.tasks[i];
    // Packing turns every repo into a path: repo; the key keeps its results grouped as before.
    if (task.repo_key === undefined && loadedTask !== undefined) task.repo_key = taskRepoKey(loadedTask);
    await rewrite(task, `tasks[${i}]`);
  }

  files.set(PACK_TASKSET, { type: 'file', data: Buffer.from(stringify(raw, { lineWidth: 0 }), 'utf8') });
  const links = new Map([...files].filter(([, f]) => f.type === 'symlink').map(([p, f]) => [p, f.data.toString('utf8')]));
  for (const [path, target] of links) {
    if (resolveInPack(path, target, links) === undefined)
      throw new InputError(`${path}: symlink to ${target} leads outside what is packed (fix: replace it with the file, or make it relative inside the repo)`);
  }
  const folded = new Map<string, string>();
  for (const path of files.keys()) {
    const other = folded.get(foldedName(path));
    if (other !== undefined)
      throw new InputError(`${path} and ${other} differ only in case or Unicode form; a pack must extract the same everywhere (fix: rename one)`);
    folded.set(foldedName(path), path);
  }

  const manifest: PackManifest = {
    format: PACK_FORMAT,
    version: PACK_FORMAT_VERSION,
    taskset: PACK_TASKSET,
    files: [...files].map(([path, f]) => ({ path, type: f.type, size: f.data.length, sha256: sha256(f.data) })),
  };
  const manifestBytes = serializeManifest(manifest);
  files.set(MANIFEST_NAME, { type: 'file', data: manifestBytes });
  await writeZip(files, output);
  return { archive: resolve(output), rootDigest: sha256(manifestBytes), files: manifest.files.length };
}

async function writeZip(files: Map<string, PackFile>, output: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const name of [...files.keys()].sort(compareNames)) {
    const f = files.get(name) as PackFile;
    zip.addBuffer(f.data, name, { mtime: FIXED_MTIME, mode: MODES[f.type], compress: f.type !== 'symlink', forceDosTimestamp: true });
  }
  const target = resolve(output);
  mkdirSync(dirname(target), { recursive: true });
  const temp = `${target}.partial-${process.pid}`;
  try {
    await new Promise<void>((done, fail) => {
      const out = createWriteStream(temp, { flags: 'wx' });
      zip.outputStream.pipe(out).on('finish', done).on('error', fail);
      zip.outputStream.on('error', fail);
      zip.end();
    });
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** A local git source's directory, or undefined for a remote URL (it needs the network). */
function localGitPath(url: string, dir: string): string | undefined {
  if (/^file:\/\//i.test(url)) return fileURLToPath(url);
  const remote = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\\]+@[^:]+:/.test(url);
  return remote ? undefined : resolve(dir, url);
}

function safeSegment(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned.length > 0 ? cleaned : 'repo';
}
