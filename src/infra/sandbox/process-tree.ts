import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/**
 * Finds and signals every process a spawned command left behind, by reading /proc. A process
 * group alone is not enough: a child may call setsid (new group) and its parent may die (its ppid
 * link moves to init), so the tree is the union of the group, the ppid descendants, and whoever
 * still holds one of the command's stdio sockets.
 */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  /** Clock ticks since boot; with the pid it identifies a process across pid reuse. */
  startTime: string;
  state: string;
}

export function readProcess(pid: number): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgrp] = fields;
  const startTime = fields[19];
  if (state === undefined || ppid === undefined || pgrp === undefined || startTime === undefined) {
    return undefined;
  }
  return { pid, ppid: Number(ppid), pgrp: Number(pgrp), startTime, state };
}

export function listProcesses(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProcess(Number(name));
    if (entry) entries.push(entry);
  }
  return entries;
}

/** The `socket:[inode]` / `pipe:[inode]` identities of a process's descriptors, where readable. */
export function descriptorIdentities(pid: number, fds: readonly number[]): string[] {
  const identities: string[] = [];
  for (const fd of fds) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (/^(socket|pipe):\[\d+\]$/.test(link)) identities.push(link);
    } catch {
      // Already closed or exited: nothing to track.
    }
  }
  return identities;
}

/** Pids of processes holding any descriptor whose identity is in `identities`. */
export function findHolders(identities: ReadonlySet<string>): number[] {
  if (identities.size === 0) return [];
  const holders: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${name}/fd/${fd}`);
      } catch {
        continue;
      }
      if (identities.has(link)) {
        holders.push(Number(name));
        break;
      }
    }
  }
  return holders;
}

export interface TreeQuery {
  /** The spawned process; it leads its own process group. */
  leader: number;
  /** False once the leader has been reaped: a process with its pid is then someone else. */
  leaderIsOurs: boolean;
  /** Socket identities of the command's stdio; their holders belong to the tree. */
  stdio: ReadonlySet<string>;
  /** Scanning every process's descriptors costs more; done only when something is left over. */
  includeStdioHolders: boolean;
}

/** The leader's group, its descendants by ppid, and optionally the stdio holders with theirs. */
export function collectTree(query: TreeQuery): ProcessEntry[] {
  const all = listProcesses();
  const byPid = new Map(all.map((entry) => [entry.pid, entry]));
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of all) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else children.set(entry.ppid, [entry]);
  }

  // A group id is not reused while the group has members, but once our leader is reaped a new
  // process may get its pid and lead a new group of the same number.
  const groupReused = !query.leaderIsOurs && byPid.has(query.leader);
  const found = new Map<number, ProcessEntry>();
  const queue: ProcessEntry[] = [];
  const add = (entry: ProcessEntry | undefined): void => {
    if (!entry || found.has(entry.pid) || entry.pid <= 1 || entry.pid === process.pid) return;
    found.set(entry.pid, entry);
    queue.push(entry);
  };

  if (query.leaderIsOurs) add(byPid.get(query.leader));
  if (!groupReused) for (const entry of all) if (entry.pgrp === query.leader) add(entry);
  if (query.includeStdioHolders) for (const pid of findHolders(query.stdio)) add(byPid.get(pid));

  while (queue.length > 0) {
    const parent = queue.pop();
    if (parent) for (const child of children.get(parent.pid) ?? []) add(child);
  }
  return [...found.values()];
}

/** True when the process has exited (a zombie counts: it runs nothing and holds nothing). */
export function isGone(entry: ProcessEntry): boolean {
  const now = readProcess(entry.pid);
  return !now || now.startTime !== entry.startTime || now.state === 'Z' || now.state === 'X';
}

/** Signals each process that is still the one observed (same start time), ignoring the departed. */
export function signalProcesses(entries: readonly ProcessEntry[], signal: NodeJS.Signals): void {
  for (const entry of entries) {
    if (isGone(entry)) continue;
    try {
      process.kill(entry.pid, signal);
    } catch {
      // Exited between the check and the signal, or not ours to signal: nothing more to do.
    }
  }
}
