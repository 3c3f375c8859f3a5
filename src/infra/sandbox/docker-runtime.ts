import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { findOnPath } from './find-on-path.js';
import { readFirst } from './forwarder-source.js';

/**
 * What Crucible brings into every container to run its helpers (the keep-alive with the gateway
 * bridge, and the supervisor of each command), whatever the image holds: the host's node binary
 * with its dynamic loader and the libraries it links, bound read-only under /.crucible and started
 * through that loader, so it never touches the image's libc (an Alpine image works as well as a
 * Debian one); and docker-init (tini, shipped with the engine) as pid 1 to reap orphans.
 */
export const HELPER_DIR = '/.crucible';
const LIB_DIR = `${HELPER_DIR}/lib`;
export const SUPERVISOR_PATH = `${HELPER_DIR}/exec-init.mjs`;
export const KEEPALIVE_PATH = `${HELPER_DIR}/keepalive.mjs`;
const INIT_PATH = `${HELPER_DIR}/init`;
const NODE_PATH = `${HELPER_DIR}/node`;

/**
 * The helpers' threads and memory count against the container's pids and memory limits: one V8
 * worker instead of one per core, and (HELPER_ENV) one libuv worker instead of four.
 */
const NODE_FLAGS = ['--v8-pool-size=1', '--max-old-space-size=64'];
export const HELPER_ENV = ['UV_THREADPOOL_SIZE=1'];

export interface HelperBind {
  source: string;
  target: string;
}

export interface HelperRuntime {
  /** Read-only binds of node, its loader and libraries, and docker-init when found. */
  binds: HelperBind[];
  /** argv prefix that runs the bound node (the loader first when node is dynamically linked). */
  node: string[];
  /** Path of docker-init inside the container, when the host has one. */
  init?: string;
}

let cached: HelperRuntime | undefined;

export function helperRuntime(): HelperRuntime {
  cached ??= discover();
  return cached;
}

function discover(): HelperRuntime {
  const nodeBinary = realpathSync(process.execPath);
  const binds: HelperBind[] = [{ source: nodeBinary, target: NODE_PATH }];
  const linked = linkedLibraries(nodeBinary);
  let node = [NODE_PATH, ...NODE_FLAGS];
  if (linked) {
    for (const lib of [linked.loader, ...linked.libraries]) binds.push({ source: realpathSync(lib.path), target: `${LIB_DIR}/${lib.name}` });
    node = [`${LIB_DIR}/${linked.loader.name}`, '--library-path', LIB_DIR, NODE_PATH, ...NODE_FLAGS];
  }
  const init = findOnPath('docker-init', `${process.env.PATH ?? ''}:/usr/libexec/docker:/usr/local/bin:/usr/bin:/usr/sbin`);
  if (init !== undefined) binds.push({ source: realpathSync(init), target: INIT_PATH });
  return { binds, node, ...(init !== undefined ? { init: INIT_PATH } : {}) };
}

interface Library {
  name: string;
  path: string;
}

/** node's loader and shared libraries by `ldd`; undefined for a static node or without ldd. */
function linkedLibraries(binary: string): { loader: Library; libraries: Library[] } | undefined {
  const run = spawnSync('ldd', [binary], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, timeout: 10_000 });
  if (run.status !== 0 || typeof run.stdout !== 'string') return undefined;
  return parseLdd(run.stdout);
}

export function parseLdd(text: string): { loader: Library; libraries: Library[] } | undefined {
  let loader: Library | undefined;
  const libraries: Library[] = [];
  for (const line of text.split('\n')) {
    const linked = /^\s*(\S+) => (\/\S+) \(0x[0-9a-f]+\)/.exec(line);
    if (linked?.[1] && linked[2]) {
      libraries.push({ name: linked[1], path: linked[2] });
      continue;
    }
    const direct = /^\s*(\/\S+) \(0x[0-9a-f]+\)/.exec(line);
    if (direct?.[1]) loader = { name: basename(direct[1]), path: direct[1] };
  }
  return loader ? { loader, libraries: libraries.filter((lib) => lib.name !== loader.name) } : undefined;
}

const sources = new Map<string, Promise<string>>();

/**
 * The text of a helper script, written into the executor's files and bound in. Beside this module
 * sits the compiled `.js` (dist) or only the `.ts` source (vitest), which is valid JavaScript as it
 * stands; from the bundled CLI it is found in dist/infra/sandbox (see forwarder-source.ts).
 */
export function helperScript(name: 'docker-exec-init' | 'docker-keepalive'): Promise<string> {
  let source = sources.get(name);
  if (!source) {
    source = readFirst([`./${name}.js`, `../infra/sandbox/${name}.js`, `./${name}.ts`]);
    sources.set(name, source);
  }
  return source;
}
