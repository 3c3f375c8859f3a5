import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxSetupError } from './errors.js';
import type { ExecLimitName, ExecLimits } from './executor.js';

/**
 * One cgroup per exec, holding every process of the command, so that limits and counters cover
 * the whole tree however it forks. cgroup v2 is used for a controller only where it is already
 * delegated to us (our cgroup lists it in cgroup.subtree_control): enabling it would mean changing
 * the host's hierarchy. Otherwise the v1 hierarchy of that controller, where one is mounted.
 */
export type Controller = 'pids' | 'memory' | 'cpu';

export interface ControllerHome {
  version: 1 | 2;
  /** Our own cgroup in that hierarchy; exec cgroups are made inside it, so its limits still apply. */
  parent: string;
}

export type CgroupSupport = Partial<Record<Controller, ControllerHome>>;

const CONTROLLERS: readonly Controller[] = ['pids', 'memory', 'cpu'];
/** CPU time is read from cpuacct in v1; v2's cpu controller also carries it. */
const V1_NAME: Record<Controller, string> = { pids: 'pids', memory: 'memory', cpu: 'cpuacct' };
/** A file the controller's cgroups have, to tell a usable hierarchy from a mount without it. */
const PROBE_FILE: Record<1 | 2, Record<Controller, string>> = {
  1: { pids: 'pids.max', memory: 'memory.limit_in_bytes', cpu: 'cpuacct.usage' },
  2: { pids: 'pids.max', memory: 'memory.max', cpu: 'cpu.stat' },
};
const REMOVE_ATTEMPTS = 100;
const REMOVE_RETRY_MS = 50;

export interface CgroupMounts {
  /** Our cgroup's directory in the unified (v2) hierarchy. */
  v2?: string;
  /** Our cgroup's directory in the v1 hierarchy that has each controller. */
  v1: Partial<Record<Controller, string>>;
}

/** Where we sit in each mounted hierarchy, from /proc/self/mountinfo and /proc/self/cgroup. */
export function parseCgroupMounts(mountinfo: string, selfCgroup: string): CgroupMounts {
  const membership = selfCgroup
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, controllers = '', ...path] = line.split(':');
      return { id, controllers: controllers.split(',').filter(Boolean), path: path.join(':') };
    });
  const result: CgroupMounts = { v1: {} };
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (dash < 0) continue;
    const [root, mountPoint] = [unescape(fields[3] ?? ''), unescape(fields[4] ?? '')];
    const fsType = fields[dash + 1];
    const options = (fields[dash + 3] ?? '').split(',');
    if (fsType === 'cgroup2') {
      const own = membership.find((entry) => entry.id === '0' && entry.controllers.length === 0);
      const dir = own && within(own.path, root, mountPoint);
      if (dir !== undefined) result.v2 ??= dir;
    } else if (fsType === 'cgroup') {
      for (const controller of CONTROLLERS) {
        if (!options.includes(V1_NAME[controller])) continue;
        const own = membership.find((entry) => entry.controllers.includes(V1_NAME[controller]));
        const dir = own && within(own.path, root, mountPoint);
        if (dir !== undefined) result.v1[controller] ??= dir;
      }
    }
  }
  return result;
}

let detected: CgroupSupport | undefined;

/** The controllers this process can give an exec cgroup, tried once (by making one) and cached. */
export function detectCgroups(): CgroupSupport {
  if (detected === undefined) {
    detected = probe(readMounts());
    sweepStaleCgroups(detected);
  }
  return detected;
}

/**
 * Removes the cgroups a Crucible process left when it was killed mid-command (`crucible-<pid>-…`
 * whose process is gone). bwrap dies with its parent, so they are empty and rmdir takes them.
 */
export function sweepStaleCgroups(support: CgroupSupport): string[] {
  const removed: string[] = [];
  const parents = new Set(Object.values(support).map((home) => home.parent));
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = /^crucible-(?:probe-)?(\d+)-/.exec(name)?.[1];
      if (owner === undefined || owner === String(process.pid) || existsSync(`/proc/${owner}`)) continue;
      try {
        rmdirSync(join(parent, name));
        removed.push(join(parent, name));
      } catch {
        // Still holding a process, or not ours to remove: left alone.
      }
    }
  }
  return removed;
}

function readMounts(): CgroupMounts {
  try {
    return parseCgroupMounts(readFileSync('/proc/self/mountinfo', 'utf8'), readFileSync('/proc/self/cgroup', 'utf8'));
  } catch {
    return { v1: {} };
  }
}

function probe(mounts: CgroupMounts): CgroupSupport {
  const support: CgroupSupport = {};
  const delegated = mounts.v2 === undefined ? [] : readText(join(mounts.v2, 'cgroup.subtree_control')).split(/\s+/);
  for (const controller of CONTROLLERS) {
    const candidates: ControllerHome[] = [];
    if (mounts.v2 !== undefined && delegated.includes(controller)) candidates.push({ version: 2, parent: mounts.v2 });
    const v1 = mounts.v1[controller];
    if (v1 !== undefined) candidates.push({ version: 1, parent: v1 });
    const usable = candidates.find((home) => canCreate(home, controller));
    if (usable) support[controller] = usable;
  }
  return support;
}

function canCreate(home: ControllerHome, controller: Controller): boolean {
  const dir = join(home.parent, `crucible-probe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  try {
    return existsSync(join(dir, PROBE_FILE[home.version][controller]));
  } finally {
    try {
      rmdirSync(dir);
    } catch {
      // An empty cgroup just made is always removable; nothing else to do if not.
    }
  }
}

let sequence = 0;

/** The cgroup of one exec: made with its limits before the command starts, removed after. */
export class ExecCgroup {
  private constructor(
    private readonly homes: ReadonlyMap<Controller, { version: 1 | 2; dir: string }>,
    private readonly limits: ExecLimits,
  ) {}

  /** Undefined when none of the limits needs a controller this machine offers. */
  static create(support: CgroupSupport, limits: ExecLimits): ExecCgroup | undefined {
    const wanted: Controller[] = [];
    if (limits.pids !== undefined) wanted.push('pids');
    if (limits.memoryBytes !== undefined) wanted.push('memory');
    if (limits.cpuSeconds !== undefined) wanted.push('cpu');
    const name = `crucible-${process.pid}-${++sequence}`;
    const homes = new Map<Controller, { version: 1 | 2; dir: string }>();
    for (const controller of wanted) {
      const home = support[controller];
      if (home) homes.set(controller, { version: home.version, dir: join(home.parent, name) });
    }
    if (homes.size === 0) return undefined;
    const cgroup = new ExecCgroup(homes, limits);
    try {
      for (const dir of cgroup.dirs()) mkdirSync(dir);
      cgroup.writeLimits();
    } catch (error) {
      for (const dir of cgroup.dirs()) {
        try {
          rmdirSync(dir);
        } catch {
          // Not made, or made and empty: either way nothing is left to undo.
        }
      }
      throw error;
    }
    return cgroup;
  }

  has(controller: Controller): boolean {
    return this.homes.has(controller);
  }

  /** One per hierarchy; a process must be written into each to be inside the exec cgroup. */
  procsFiles(): string[] {
    return this.dirs().map((dir) => join(dir, 'cgroup.procs'));
  }

  /**
   * Moves process `pid` into the cgroup (its future children follow), from outside: the caller's
   * own failure, never words the command could print.
   */
  enter(pid: number): void {
    for (const file of this.procsFiles()) {
      try {
        writeFileSync(file, String(pid));
      } catch (error) {
        throw new SandboxSetupError(`crucible: cannot enter cgroup ${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** The limit the command has hit so far, by the kernel's own counters. */
  exceeded(): ExecLimitName | undefined {
    const memory = this.homes.get('memory');
    if (memory) {
      const file = memory.version === 1 ? 'memory.oom_control' : 'memory.events';
      if (counter(join(memory.dir, file), 'oom_kill') > 0) return 'memory';
    }
    const pids = this.homes.get('pids');
    // The `max` event counts forks refused at pids.max.
    if (pids && counter(join(pids.dir, 'pids.events'), 'max') > 0) return 'pids';
    const cpu = this.homes.get('cpu');
    if (cpu && this.limits.cpuSeconds !== undefined && cpuNanoseconds(cpu) > this.limits.cpuSeconds * 1e9) return 'cpu_time';
    return undefined;
  }

  /** SIGKILLs everything inside; forks racing the kill are caught by calling it again. */
  killAll(): number {
    let signalled = 0;
    for (const file of this.procsFiles()) {
      for (const pid of readText(file).split('\n').filter(Boolean).map(Number)) {
        try {
          process.kill(pid, 'SIGKILL');
          signalled++;
        } catch {
          // Already gone.
        }
      }
    }
    return signalled;
  }

  /**
   * Removes the cgroup once everything in it is gone. The kernel refuses (EBUSY) until the last
   * process is fully released, which lags its exit, so this retries for a while.
   */
  async remove(): Promise<void> {
    let left = this.dirs();
    for (let attempt = 0; attempt < REMOVE_ATTEMPTS && left.length > 0; attempt++) {
      if (attempt > 0) await sleep(REMOVE_RETRY_MS);
      this.killAll();
      left = left.filter((dir) => {
        try {
          rmdirSync(dir);
          return false;
        } catch (error) {
          return !(error instanceof Error && 'code' in error && error.code === 'ENOENT');
        }
      });
    }
    if (left.length > 0) throw new Error(`could not remove cgroup ${left.join(', ')}`);
  }

  private dirs(): string[] {
    return [...new Set([...this.homes.values()].map((home) => home.dir))];
  }

  private writeLimits(): void {
    const { pids, memoryBytes } = this.limits;
    const pidsHome = this.homes.get('pids');
    if (pidsHome && pids !== undefined) writeFileSync(join(pidsHome.dir, 'pids.max'), String(pids));
    const memory = this.homes.get('memory');
    if (memory && memoryBytes !== undefined) {
      // Swap must be covered too, or the command outgrows its limit by swapping.
      if (memory.version === 2) {
        writeFileSync(join(memory.dir, 'memory.max'), String(memoryBytes));
        const swap = join(memory.dir, 'memory.swap.max');
        if (existsSync(swap)) writeFileSync(swap, '0');
      } else {
        writeFileSync(join(memory.dir, 'memory.limit_in_bytes'), String(memoryBytes));
        // memsw is memory plus swap; it must be set after (and be at least) the memory limit.
        const memsw = join(memory.dir, 'memory.memsw.limit_in_bytes');
        if (existsSync(memsw)) writeFileSync(memsw, String(memoryBytes));
        else writeFileSync(join(memory.dir, 'memory.swappiness'), '0');
      }
    }
  }
}

function cpuNanoseconds(home: { version: 1 | 2; dir: string }): number {
  if (home.version === 1) return Number(readText(join(home.dir, 'cpuacct.usage')).trim()) || 0;
  return counter(join(home.dir, 'cpu.stat'), 'usage_usec') * 1000;
}

/** The number after `key` in a flat-keyed cgroup file (`key value` per line); 0 when absent. */
function counter(file: string, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(readText(file));
  return match ? Number(match[1]) : 0;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The directory of cgroup `path` in a hierarchy whose `root` is mounted at `mountPoint`. */
function within(path: string, root: string, mountPoint: string): string | undefined {
  const rel = root === '/' ? path : path === root || path.startsWith(`${root}/`) ? path.slice(root.length) : undefined;
  return rel === undefined ? undefined : join(mountPoint, rel).replace(/(.)\/$/, '$1');
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
