import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { allowlistMounts } from './bwrap-allowlist.js';
import { buildBwrapArgs } from './bwrap-args.js';
import { rememberCredentialScans } from './credential-paths.js';
import { findOnPath } from './find-on-path.js';
import { probeFingerprint, readProbeCache, writeProbeCache } from './probe-cache.js';
import { spawnBounded } from './spawn-bounded.js';

export type BwrapDetection = { ok: true; version: string; path: string } | { ok: false; reason: string; fix: string };

export interface DetectOptions {
  /** The PATH value searched for bwrap. Default: the host's PATH. */
  searchPath?: string;
  /**
   * Where a working probe's verdict is remembered (probe-cache.ts), e.g.
   * `<state>/cache/sandbox-probe.json`; absent: probe every time.
   */
  cacheFile?: string;
}

const INSTALL_FIX = 'sudo apt-get install -y bubblewrap (Fedora: sudo dnf install -y bubblewrap)';
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Whether bubblewrap can sandbox here. Finding the binary is not enough: user namespaces may be
 * disabled or restricted (Ubuntu's AppArmor rule, Debian's sysctl, Docker's seccomp profile), so
 * this really starts a sandbox with the flags the executor uses.
 */
export async function detectBwrap(options: DetectOptions = {}): Promise<BwrapDetection> {
  if (process.platform !== 'linux') {
    return { ok: false, reason: `bubblewrap needs Linux (this is ${process.platform})`, fix: 'no sandbox is available on this platform' };
  }
  const path = findOnPath('bwrap', options.searchPath ?? process.env.PATH);
  if (path === undefined) return { ok: false, reason: 'bwrap is not installed (not found on PATH)', fix: INSTALL_FIX };
  // Beside the probe's verdict: the credential walk every sandbox's mounts need (credential-paths.ts).
  if (options.cacheFile !== undefined) rememberCredentialScans(join(dirname(options.cacheFile), 'credential-scan.json'));
  const fingerprint = options.cacheFile === undefined ? undefined : await probeFingerprint(path);
  if (options.cacheFile !== undefined && fingerprint !== undefined) {
    const remembered = await readProbeCache(options.cacheFile, path, fingerprint);
    if (remembered) return { ok: true, ...remembered };
  }
  const detection = await probeBwrap(path);
  if (detection.ok && options.cacheFile !== undefined && fingerprint !== undefined) await writeProbeCache(options.cacheFile, detection, fingerprint);
  return detection;
}

/** Runs `bwrap --version` and a real sandbox with the executor's flags. */
async function probeBwrap(path: string): Promise<BwrapDetection> {
  const view = { path: process.env.PATH ?? '', pyenvRoot: process.env.PYENV_ROOT, execPath: process.execPath, userHome: homedir(), sandboxHome: '/' };
  const mounts = allowlistMounts('none', view);
  const probeArgs = buildBwrapArgs({ mounts, network: 'none', cwd: '/', command: [process.execPath, '-e', '0'] });
  // Both at once: every run pays for this check before its first attempt. The version's verdict
  // still comes first, so a broken binary is reported as such rather than as a failed sandbox.
  const [versionRun, probe] = await Promise.all([run([path, '--version']), run([path, ...probeArgs.args], probeArgs.files)]);
  const version = /(\d+\.\d+(?:\.\d+)?)/.exec(versionRun?.stdout ?? '')?.[1];
  if (versionRun?.exitCode !== 0 || version === undefined) {
    return { ok: false, reason: `${path} --version failed: ${firstLine(versionRun?.stderr) || 'no version printed'}`, fix: INSTALL_FIX };
  }
  if (probe?.exitCode !== 0) {
    const why = firstLine(probe?.stderr) || (probe?.timedOut ? 'timed out' : `exit ${probe?.exitCode ?? probe?.signal}`);
    return { ok: false, reason: `bwrap ${version} cannot create a sandbox (${why})`, fix: namespaceFix(readUserNamespaceSettings()) };
  }
  return { ok: true, version, path };
}

export interface UserNamespaceSettings {
  /** kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10+). */
  apparmorRestrict?: string;
  /** kernel.unprivileged_userns_clone (Debian before 11). */
  unprivilegedClone?: string;
  /** user.max_user_namespaces. */
  maxUserNamespaces?: string;
}

/** The fix for a bwrap that is installed but cannot create namespaces, from the kernel's settings. */
export function namespaceFix(settings: UserNamespaceSettings): string {
  if (settings.apparmorRestrict === '1') {
    return 'allow unprivileged user namespaces: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or add an AppArmor profile for bwrap)';
  }
  if (settings.unprivilegedClone === '0') {
    return 'enable unprivileged user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1';
  }
  if (settings.maxUserNamespaces === '0') {
    return 'enable user namespaces: sudo sysctl -w user.max_user_namespaces=15000';
  }
  return 'enable unprivileged user namespaces (in a container: run it with --security-opt seccomp=unconfined, or use a VM)';
}

function readUserNamespaceSettings(): UserNamespaceSettings {
  return {
    apparmorRestrict: readSetting('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
    unprivilegedClone: readSetting('/proc/sys/kernel/unprivileged_userns_clone'),
    maxUserNamespaces: readSetting('/proc/sys/user/max_user_namespaces'),
  };
}

function readSetting(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

async function run(argv: string[], files?: string[]) {
  return spawnBounded({ argv, cwd: '/', env: {}, timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 16 * 1024, files }).catch(() => undefined);
}

function firstLine(text: string | undefined): string {
  return (text ?? '').trim().split('\n')[0] ?? '';
}
