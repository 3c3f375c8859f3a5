import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cutOutput } from '../../../core/format/index.js';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { InputError } from '../../../core/errors.js';
import type { AgentProfile } from './profile.js';
import { isTarballSpec } from './profile-schema.js';

/**
 * Where an agent's program is on the host: a `package` installed with npm into the agent cache,
 * or a `command_path` already on this machine. The sandbox shows `readOnly` to the agent so the
 * program and its files are there, and nothing of the cache is writable.
 */
export interface ResolvedProgram {
  /** Absolute host path of the program (symlinks resolved). */
  argv0: string;
  /** Directories the sandbox must show read-only so the program and its files are visible. */
  readOnly: string[];
}

export interface ResolveProgramOptions {
  cacheDir: string;
  /** Install a missing package (true), or fail naming `crucible agents install NAME` (false). */
  install: boolean;
  /** Told one line before a (slow) install starts. */
  onProgress?: (line: string) => void;
  /** The host environment npm starts from; API keys are removed either way. Default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** The marker an install writes last, inside the directory, before it is renamed into place. */
export const INSTALL_MARKER = '.crucible-install.json';

interface InstallMarker {
  spec: string;
  /** The version npm installed, from the package's package.json. */
  version?: string;
  installedAt: string;
}

/** `CRUCIBLE_AGENT_CACHE` when set, else `<stateDir>/agents`; always absolute. */
export function agentCacheDir(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['CRUCIBLE_AGENT_CACHE'];
  return resolve(fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(stateDir, 'agents'));
}

/** The program a profile runs: installing its package first when allowed and needed. */
export async function resolveProgram(profile: AgentProfile, options: ResolveProgramOptions): Promise<ResolvedProgram> {
  if (profile.commandPath !== undefined) return hostProgram(profile.name, profile.commandPath);
  if (profile.package === undefined) throw new InputError(`${profile.source}: profile ${profile.name} has neither package nor command_path (fix: add one)`);
  let dir = installedDir(profile, options.cacheDir);
  if (dir === undefined) {
    if (!options.install) {
      throw new InputError(
        `agent ${profile.name} (${profile.package}) is not installed in ${options.cacheDir} (fix: run \`crucible agents install ${profile.name}\`)`,
      );
    }
    dir = await installPackage(profile, options);
  }
  return { argv0: binOf(profile, dir), readOnly: [dir] };
}

/** What the cache key of a spec hashes: a tarball's bytes, so a rebuilt tarball installs again. */
function specKey(spec: string): string {
  return isTarballSpec(spec) && existsSync(spec) ? `${spec}#${sha256(readFileSync(spec))}` : spec;
}

/** `<cacheDir>/<name>-<first 12 hex of sha256(spec)>`: one directory per profile name and version. */
export function installDirOf(profile: AgentProfile, cacheDir: string): string {
  return join(cacheDir, `${profile.name}-${sha256(specKey(profile.package ?? '')).slice(0, 12)}`);
}

/** The install directory when a finished install of exactly this spec is there. */
export function installedDir(profile: AgentProfile, cacheDir: string): string | undefined {
  const dir = installDirOf(profile, cacheDir);
  const marker = readMarker(dir);
  return marker?.spec === specKey(profile.package ?? '') ? dir : undefined;
}

/** The version installed for this profile, or undefined when it is not installed (or is a command_path). */
export function installedVersion(profile: AgentProfile, cacheDir: string): string | undefined {
  const dir = installedDir(profile, cacheDir);
  return dir === undefined ? undefined : readMarker(dir)?.version;
}

function readMarker(dir: string): InstallMarker | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, INSTALL_MARKER), 'utf8')) as InstallMarker;
  } catch {
    return undefined;
  }
}

/**
 * Installs the profile's package into its cache directory, one process at a time (a lock file
 * beside it), into a temporary directory renamed into place when complete: a killed install never
 * leaves a directory that looks installed. Returns the directory.
 */
export async function installPackage(profile: AgentProfile, options: ResolveProgramOptions): Promise<string> {
  const spec = profile.package as string;
  const dir = installDirOf(profile, options.cacheDir);
  await mkdir(options.cacheDir, { recursive: true });
  const release = await lock(`${dir}.lock`);
  try {
    // Another process may have finished it while this one waited for the lock.
    if (installedDir(profile, options.cacheDir) !== undefined) return dir;
    // An install takes a minute or more on a cold npm cache: each step says what it waits for.
    options.onProgress?.(`installing ${profile.name} (${spec}) with npm into ${options.cacheDir}, once: later runs reuse it…`);
    const tmp = `${dir}.tmp-${process.pid}`;
    // With the lock held, a temporary directory of another process is one a killed install left.
    await removeLeftovers(dir);
    await mkdir(tmp, { recursive: true });
    const env = withoutKeys(options.env ?? process.env);
    // Install scripts of dependencies never run on the host; the agent package's own do (npm
    // rebuild <name>), since Crucible runs that package's code anyway and some (claude-code) need
    // theirs to put the native binary in place.
    await npm(['install', '--prefix', tmp, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', '--ignore-scripts', spec], env, profile);
    const name = packageName(spec, tmp);
    options.onProgress?.(`${profile.name}: downloaded; running ${name}'s own install script (npm rebuild)…`);
    await npm(['rebuild', name, '--prefix', tmp, '--no-audit', '--no-fund', '--loglevel=error'], env, profile);
    const version = readVersion(tmp, name);
    const marker: InstallMarker = { spec: specKey(spec), ...(version ? { version } : {}), installedAt: new Date().toISOString() };
    await writeFile(join(tmp, INSTALL_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    // A directory without a marker here is a leftover of an older layout or a hand edit: replace it.
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    options.onProgress?.(`installed ${profile.name}${version ? ` ${version}` : ''}`);
    return dir;
  } finally {
    await release();
  }
}

async function removeLeftovers(dir: string): Promise<void> {
  const prefix = `${basename(dir)}.tmp-`;
  const parent = dirname(dir);
  for (const name of readdirSync(parent)) if (name.startsWith(prefix)) await rm(join(parent, name), { recursive: true, force: true });
}

/**
 * npm installs running now, each in a process group of its own. A signal that ends the CLI during
 * an install (nothing else listens then) must not leave npm writing on: they end with the process.
 */
const runningNpm = new Set<ChildProcess>();

function endRunningNpm(): void {
  for (const child of runningNpm) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

function track(child: ChildProcess): void {
  if (runningNpm.size === 0) process.on('exit', endRunningNpm);
  runningNpm.add(child);
  child.once('close', () => {
    runningNpm.delete(child);
    if (runningNpm.size === 0) process.off('exit', endRunningNpm);
  });
}

/** The package's name: from `name@version`, or from inside a tarball as npm installed it. */
function packageName(spec: string, prefix: string): string {
  if (!isTarballSpec(spec)) return spec.replace(/@[^@/]+$/, '');
  const listing = spawnSync('tar', ['-xzOf', spec, 'package/package.json'], { encoding: 'utf8' });
  const name = (JSON.parse(listing.stdout || '{}') as { name?: string }).name;
  if (typeof name === 'string' && existsSync(join(prefix, 'node_modules', name))) return name;
  throw new InputError(`${spec}: not an npm package tarball (fix: make it with npm pack)`);
}

function readVersion(prefix: string, name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(prefix, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Variables npm never needs and an install script must not see: provider keys, tokens, secrets. */
function withoutKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const secret = /(API_KEY|_KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i;
  // npm's own auth (NPM_TOKEN in an .npmrc) stays: a private registry needs it.
  return Object.fromEntries(Object.entries(env).filter(([k]) => !secret.test(k) || /^npm_/i.test(k)));
}

const TAIL_LINES = 15;

function npm(args: string[], env: NodeJS.ProcessEnv, profile: AgentProfile): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npm', args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    track(child);
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-16_384);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) =>
      reject(new InputError(`installing ${profile.name}: cannot run npm (${error.message}) (fix: install Node.js with npm, or use command_path)`)),
    );
    child.on('close', (code) => {
      if (code === 0) return resolvePromise();
      // npm's reason is in its `npm error` lines, not in its last line (a note about its log).
      const tail = cutOutput(output.trim(), { maxChars: 3000, maxLines: TAIL_LINES, headLines: 0, tailLines: 3 }).split('\n').join(' | ');
      reject(
        new InputError(
          `installing ${profile.name} (${profile.package ?? ''}): npm ${args[0]} exited ${String(code)}: ${tail} (fix: check the package spec and the network, then run \`crucible agents install ${profile.name}\`)`,
        ),
      );
    });
  });
}

/** `command[0]` among the package's bins, its symlink resolved to the real file. */
function binOf(profile: AgentProfile, dir: string): string {
  const bin = profile.command[0] as string;
  const binDir = join(dir, 'node_modules', '.bin');
  const path = join(binDir, bin);
  if (!existsSync(path)) {
    const bins = existsSync(binDir) ? readdirSync(binDir).filter((b) => !b.startsWith('.')) : [];
    throw new InputError(
      `${profile.source}: ${profile.name}: ${profile.package ?? ''} has no program "${bin}" (fix: set command[0] to one of: ${bins.join(', ') || 'none (the package has no bin)'})`,
    );
  }
  return realpathSync(path);
}

/** Directories the sandbox shows anyway; binding a program's directory there adds nothing. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/etc'];

function hostProgram(name: string, commandPath: string): ResolvedProgram {
  if (!isAbsolute(commandPath) || !existsSync(commandPath)) {
    throw new InputError(`agent ${name}: command_path ${commandPath} does not exist (fix: install the agent there, or correct command_path)`);
  }
  const real = realpathSync(commandPath);
  if (!statSync(real).isFile()) throw new InputError(`agent ${name}: command_path ${commandPath} is not a file (fix: point at the program itself)`);
  try {
    accessSync(real, constants.X_OK);
  } catch {
    throw new InputError(`agent ${name}: command_path ${commandPath} is not executable (fix: chmod +x ${commandPath})`);
  }
  const dir = dirname(real);
  const system = SYSTEM_DIRS.some((s) => dir === s || dir.startsWith(s + sep));
  return { argv0: real, readOnly: system ? [] : [dir] };
}

/**
 * Identifies a profile's content in records (attempt.json): sha256 of its canonical JSON without
 * `source`, so the same profile read from another file hashes the same.
 */
export function profileHash(profile: AgentProfile): string {
  const { source: _source, ...rest } = profile;
  return sha256(canonical(rest));
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}

const LOCK_WAIT_MS = 250;
/** An install of a large agent takes minutes; a lock older than this with its process alive is still waited for. */
const LOCK_GIVE_UP_MS = 30 * 60_000;

/**
 * A lock file naming its process; a second process waits until it is gone. A lock whose process
 * died (killed mid-install) is taken over.
 */
async function lock(file: string): Promise<() => Promise<void>> {
  const mine = `${process.pid}\n`;
  const start = Date.now();
  for (;;) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(mine);
      await handle.close();
      return async () => {
        if ((await readFile(file, 'utf8').catch(() => '')) === mine) await unlink(file).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = await readFile(file, 'utf8').catch(() => '');
    const holder = Number(text.trim());
    // An empty lock is one being written right now, unless it has stayed empty (its writer died).
    const stale = text === '' ? Date.now() - mtimeOf(file) > 10_000 : !Number.isInteger(holder) || holder <= 0 || !alive(holder);
    if (stale) {
      await unlink(file).catch(() => undefined);
      continue;
    }
    if (Date.now() - start > LOCK_GIVE_UP_MS) {
      throw new InputError(`${file}: another process (${holder}) has been installing for 30 minutes (fix: stop it, or delete the lock file)`);
    }
    await new Promise((r) => setTimeout(r, LOCK_WAIT_MS));
  }
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
