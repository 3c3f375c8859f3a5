import { constants } from 'node:os';
import type { ExecLimitName, ExecResult } from './executor.js';
import { findOnPath } from './find-on-path.js';

/**
 * Per-process limits, set with util-linux `prlimit` on the first process and inherited by every
 * descendant (bwrap and its init included). RLIMIT_FSIZE is per process by definition, so it
 * enforces `fileSizeBytes` exactly. RLIMIT_CPU is only the fallback for `cpuSeconds` when no
 * cgroup can count the tree's CPU time: each process gets the budget, so a command that forks can
 * exceed it, which is why an executor relying on it does not advertise `cpu_time`.
 */
let prlimit: string | undefined | null = null;

export function findPrlimit(): string | undefined {
  if (prlimit === null) prlimit = findOnPath('prlimit', `${process.env.PATH ?? ''}:/usr/bin:/bin`);
  return prlimit;
}

export interface RlimitPlan {
  fileSizeBytes?: number;
  /** Set only when no cgroup accounts CPU time. */
  cpuSeconds?: number;
}

/** The argv prefix that applies the plan, or nothing when there is nothing to apply (or no prlimit). */
export function rlimitPrefix(plan: RlimitPlan): string[] {
  const path = findPrlimit();
  const options: string[] = [];
  if (plan.fileSizeBytes !== undefined) options.push(`--fsize=${plan.fileSizeBytes}`);
  // SIGXCPU at the soft limit, SIGKILL a second later for a process that ignores it.
  if (plan.cpuSeconds !== undefined) options.push(`--cpu=${plan.cpuSeconds}:${plan.cpuSeconds + 1}`);
  if (path === undefined || options.length === 0) return [];
  return [path, ...options, '--'];
}

const SIGXFSZ = constants.signals.SIGXFSZ;
const SIGXCPU = constants.signals.SIGXCPU;

/**
 * Which rlimit the command ran into, as far as its result shows: death by SIGXFSZ / SIGXCPU, a
 * shell reporting such a death of its child (exit 128+N), or, for programs that ignore SIGXFSZ
 * (Python does) and get EFBIG instead, that error's message on stderr.
 */
export function rlimitExceeded(result: ExecResult, plan: RlimitPlan): ExecLimitName | undefined {
  if (plan.fileSizeBytes !== undefined) {
    if (result.signal === 'SIGXFSZ' || result.exitCode === 128 + SIGXFSZ || /File too large/.test(result.stderr)) {
      return 'file_size';
    }
  }
  if (plan.cpuSeconds !== undefined && (result.signal === 'SIGXCPU' || result.exitCode === 128 + SIGXCPU)) {
    return 'cpu_time';
  }
  return undefined;
}
