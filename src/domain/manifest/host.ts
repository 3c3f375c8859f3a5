import { existsSync, realpathSync } from 'node:fs';
import { arch, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version } from '../../core/version.js';
import { git } from '../../infra/workspace/index.js';

/** Which Crucible wrote a manifest: its version, and its checkout's commit when it runs from one. */
export interface CrucibleFacts {
  version: string;
  /** Absent when Crucible is not run from a git checkout of its own (an npm install). */
  git?: { commit: string; dirty: boolean };
}

export interface HostFacts {
  os: string;
  arch: string;
  /** The kernel release (`uname -r`). */
  kernel: string;
  node: string;
}

let crucible: Promise<CrucibleFacts> | undefined;

/** Read once per process: the checkout does not change under a running Crucible. */
export function crucibleFacts(): Promise<CrucibleFacts> {
  crucible ??= readCrucibleFacts();
  return crucible;
}

async function readCrucibleFacts(): Promise<CrucibleFacts> {
  const root = packageRoot();
  const facts: CrucibleFacts = { version: version() };
  if (root === undefined || !existsSync(join(root, '.git'))) return facts;
  try {
    // The harness's git (no user config): a checkout inside another project's repo is not ours.
    const top = (await git({ cwd: root }, ['rev-parse', '--show-toplevel'])).trim();
    if (realpathSync(top) !== realpathSync(root)) return facts;
    const commit = (await git({ cwd: root }, ['rev-parse', 'HEAD'])).trim();
    const status = await git({ cwd: root }, ['status', '--porcelain', '--untracked-files=no', '--ignore-submodules']);
    return { ...facts, git: { commit, dirty: status.trim() !== '' } };
  } catch {
    // Not readable as a repository (owned by another user, a broken checkout): undetectable.
    return facts;
  }
}

/** The directory holding Crucible's package.json: src/ and dist/ sit one level below it. */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return undefined;
}

export function hostFacts(): HostFacts {
  return { os: platform(), arch: arch(), kernel: release(), node: process.version };
}
