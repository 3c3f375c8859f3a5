import { randomBytes } from 'node:crypto';
import { detectCgroups, ExecCgroup } from './cgroup.js';
import type { CgroupSupport } from './cgroup.js';
import { SandboxSetupError } from './errors.js';
import type { ExecLimitName, ExecLimits, ExecResult } from './executor.js';
import { findPrlimit, rlimitExceeded, rlimitPrefix } from './rlimits.js';
import type { RlimitPlan } from './rlimits.js';

/**
 * Runs a command under the layout's limits, for any executor: a fresh cgroup (pids, memory, CPU
 * time) that the command enters before it execs, so every descendant is inside; rlimits through
 * prlimit (file size, and CPU time per process where no cgroup counts it); a watch on the cgroup's
 * counters that kills the whole cgroup the moment a limit is hit.
 */
export interface LimitSupport {
  cgroups: CgroupSupport;
  prlimit: boolean;
}

export function limitSupport(useCgroups: boolean): LimitSupport {
  return { cgroups: useCgroups ? detectCgroups() : {}, prlimit: findPrlimit() !== undefined };
}

/** The limits enforced as ExecLimits describes them: for the whole command, not per process. */
export function enforcedLimits(support: LimitSupport): ExecLimitName[] {
  const names: ExecLimitName[] = [];
  if (support.cgroups.pids) names.push('pids');
  if (support.cgroups.memory) names.push('memory');
  if (support.cgroups.cpu) names.push('cpu_time');
  if (support.prlimit) names.push('file_size');
  return names;
}

const WATCH_MS = 100;
const JOIN_FAILURE = 'crucible: cannot enter cgroup';
/**
 * Enters each cgroup.procs given before `--`, then execs the rest. Joining is done by the process
 * itself, before it execs the command, so nothing of the command ever runs outside. Its first
 * argument is a nonce fresh for each exec that its failure line carries: the command can print
 * the words of a failed join and exit 125 too, but it never sees the nonce (exec replaced the
 * argv that held it, and under bwrap the join runs outside the sandbox).
 */
const JOIN_SCRIPT = [
  'nonce=$1',
  'shift',
  'for f do',
  '  [ "$f" = -- ] && break',
  `  echo $$ > "$f" || { echo "${JOIN_FAILURE} $nonce $f" >&2; exit 125; }`,
  '  shift',
  'done',
  'shift',
  'exec "$@"',
].join('\n');

export interface LimitedRun {
  /** The argv to spawn in place of the command's. */
  argv: string[];
  /** True once the watch has stopped the command for a limit; the result is then no surprise. */
  stopped: () => boolean;
  /**
   * With `enterBy: 'caller'` and an exec cgroup: moves process `pid` (of the host's pid namespace)
   * into it. The caller must do so before anything of the command runs. Throws SandboxSetupError.
   */
  enter?: (pid: number) => void;
  /** With `rlimitsBy: 'caller'`: the rlimits the caller sets itself (by then, nothing is prefixed). */
  rlimits?: RlimitPlan;
}

/**
 * Who applies the limits. `wrapper` (the default): the argv is prefixed with the join script and
 * prlimit, two processes per command. `caller`: the executor enters the cgroup from the host (a
 * write to cgroup.procs, before the command starts; bwrap tells the sandbox's pid, see bwrap.ts)
 * or sets the rlimits in its own init, and no process is added.
 */
export interface LimitWiring {
  enterBy?: 'wrapper' | 'caller';
  rlimitsBy?: 'wrapper' | 'caller';
}

/**
 * Calls `run` with the wrapped argv and returns its result with `limitExceeded` set. `run` is
 * where the executor spawns and interprets the result (bwrap translates its exit status there),
 * so the rlimit signals are read from the command's real status.
 */
export async function runLimited<R extends ExecResult>(
  limits: ExecLimits | undefined,
  support: LimitSupport,
  argv: readonly string[],
  run: (limited: LimitedRun) => Promise<R>,
  wiring: LimitWiring = {},
): Promise<R> {
  if (!hasLimits(limits)) {
    return run({ argv: [...argv], stopped: () => false });
  }
  assertValid(limits);
  const cgroup = ExecCgroup.create(support.cgroups, limits);
  const plan: RlimitPlan = {
    fileSizeBytes: limits.fileSizeBytes,
    cpuSeconds: cgroup?.has('cpu') ? undefined : limits.cpuSeconds,
  };
  const nonce = randomBytes(12).toString('hex');
  const byCaller = wiring.enterBy === 'caller';
  const join = cgroup && !byCaller ? ['/bin/sh', '-c', JOIN_SCRIPT, 'sh', nonce, ...cgroup.procsFiles(), '--'] : [];
  const rlimits = wiring.rlimitsBy === 'caller' ? { rlimits: plan } : {};
  const prefix = wiring.rlimitsBy === 'caller' ? [] : rlimitPrefix(plan);
  const enter = cgroup && byCaller ? { enter: (pid: number) => cgroup.enter(pid) } : {};
  let exceeded: ExecLimitName | undefined;
  const watch = setInterval(() => {
    if (exceeded !== undefined || !cgroup) return;
    exceeded = cgroup.exceeded();
    if (exceeded !== undefined) cgroup.killAll();
  }, WATCH_MS);

  let result: R;
  try {
    result = await run({ argv: [...prefix, ...join, ...argv], stopped: () => exceeded !== undefined, ...enter, ...rlimits });
  } finally {
    clearInterval(watch);
    exceeded ??= cgroup?.exceeded();
    await cgroup?.remove();
  }
  // Anywhere in stderr: the shell's own complaint about the write comes first.
  const joinFailed = `${JOIN_FAILURE} ${nonce} `;
  const at = result.stderr.indexOf(joinFailed);
  if (cgroup && !byCaller && result.exitCode === 125 && at >= 0) {
    throw new SandboxSetupError(`${JOIN_FAILURE} ${result.stderr.slice(at + joinFailed.length).split('\n')[0] ?? ''}`);
  }
  const limitExceeded = exceeded ?? rlimitExceeded(result, plan);
  return limitExceeded === undefined ? result : { ...result, limitExceeded };
}

/** Whether any limit is set; then the command runs behind wrappers, so argv[0] must be a path. */
export function hasLimits(limits: ExecLimits | undefined): limits is ExecLimits {
  return limits !== undefined && Object.values(limits).some((value) => value !== undefined);
}

function assertValid(limits: ExecLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
      throw new Error(`sandbox layout: limits.${name} must be a positive whole number, got ${value}`);
    }
  }
}
