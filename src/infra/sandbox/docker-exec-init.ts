/*
 * The supervisor of one command in a docker executor's container: every exec runs
 * `node docker-exec-init.js` (the host's node, bound in at /.crucible, see docker-runtime.ts) and
 * this starts the real command. The file is bound into the container and run as plain JavaScript,
 * so it stays self-contained (node built-ins only) and free of type annotations, like
 * gateway-forwarder.ts.
 *
 * Why it exists: docker reports a command killed by signal N as exit code 128+N; a container is
 * not a pid namespace per command, so what a command leaves running must be found and ended by
 * someone inside; and the container's cgroup counters (pids refused, OOM kills, CPU time) are read
 * here, where they are visible whatever the host's cgroup layout.
 *
 * Protocol. In, on stdin: one JSON line {argv, env, cwd, stdin?, graceMs, cpuSeconds?}; later
 * lines `kill` end the command (timeout, abort); EOF does the same (the host is gone). Out, the
 * command's stdout and stderr, then on stderr as the very last bytes: STATUS_MARK + JSON
 * {exitCode, signal, limit?, notStarted?} or {setupError} + "\n" (`notStarted`: the errno of a
 * command this supervisor could not spawn), then exits 0. The host strips it (docker-exec.ts),
 * and believes a status that claims a fault of the harness only from a supervisor that exited 0:
 * a command can print the mark itself and kill its supervisor.
 *
 * What belongs to the command: its process group, its descendants by ppid, and whoever still
 * holds this exec's stdout or stderr; when no other command is running in the container, simply
 * every process but Crucible's own helpers (pid 1, the keep-alive, the processes `docker exec`
 * started). A process that leaves all of these (setsid, closes its stdio and is orphaned while
 * another command runs) is not found: it lives on in the phase's container until the executor
 * closes it.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, statSync, writeSync } from 'node:fs';

const STATUS_MARK = '\u0000crucible-exec-status\u0000';
/** The keep-alive, pid 1's child, is recognized by its script. */
const KEEPALIVE_ARG = '/.crucible/keepalive.mjs';
const WATCH_MS = 100;
const POLL_MS = 20;
const KILL_SETTLE_MS = 2000;

/** The command's pid (it leads its own process group); 0 until spawned. */
let childPid = 0;
/** How the command ended; `exited` false until then. Signal '' and exit code -1 stand for none. */
let exited = false;
let exitCode = -1;
let exitSignal = '';
let notStarted = '';
let limit = '';
let ending = null;
let finished = false;
let graceMs = 1000;
const stdioIds = ownStdioIds();
const NO_PROCESS = { pid: 0, state: '', ppid: 0, pgrp: 0, startTime: '', keepalive: false };
const baseline = { pids: 0, oom: 0, cpu: 0 };

for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGPIPE']) process.on(name, () => undefined);

let received = '';
let ordered = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  received += chunk;
  let newline = received.indexOf('\n');
  while (newline >= 0) {
    const line = received.slice(0, newline);
    received = received.slice(newline + 1);
    if (!ordered) {
      ordered = true;
      start(line);
    } else if (line === 'kill') {
      void end();
    }
    newline = received.indexOf('\n');
  }
});
process.stdin.on('end', () => (ordered ? void end() : finish({ setupError: 'no orders received' })));
process.stdin.on('error', () => undefined);

function start(line = '') {
  let orders;
  try {
    orders = JSON.parse(line);
  } catch {
    finish({ setupError: 'the supervisor got unreadable orders' });
    return;
  }
  const argv = Array.isArray(orders.argv) ? orders.argv.map(String) : [];
  const env = typeof orders.env === 'object' && orders.env !== null ? orders.env : {};
  const cwd = String(orders.cwd);
  graceMs = Number(orders.graceMs) || 1000;
  const cpuSeconds = Number(orders.cpuSeconds) || 0;
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    finish({ setupError: `cwd ${cwd} is not a directory inside the container (is it in the layout?)` });
    return;
  }
  // One read of the counters: each is several files, and this is on every command's path.
  Object.assign(baseline, counters());
  const [command, ...args] = argv;
  const hasStdin = typeof orders.stdin === 'string';
  const child = spawn(command ?? '', args, { cwd, env, stdio: [hasStdin ? 'pipe' : 'ignore', 'inherit', 'inherit'], detached: true });
  childPid = child.pid ?? 0;
  child.on('error', (error) => {
    if (exited) return;
    const code = 'code' in error ? String(error.code) : 'unknown error';
    const missing = code === 'ENOENT';
    writeSync(2, `crucible: ${command}: ${missing ? 'command not found' : `cannot execute (${code})`}\n`);
    exited = true;
    exitCode = missing ? 127 : 126;
    notStarted = code;
    void end();
  });
  child.on('exit', (code, signal) => {
    if (exited) return;
    exited = true;
    exitCode = code ?? -1;
    exitSignal = signal ?? '';
    void end();
  });
  if (hasStdin && child.stdin) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(orders.stdin);
  }
  const watch = setInterval(() => {
    const now = counters();
    if (now.oom > baseline.oom) limit = 'memory';
    else if (now.pids > baseline.pids) limit = 'pids';
    else if (cpuSeconds > 0 && now.cpu - baseline.cpu > cpuSeconds * 1e9) limit = 'cpu_time';
    if (limit) {
      clearInterval(watch);
      void end();
    }
  }, WATCH_MS);
  watch.unref();
}

/** Ends the command's processes (politely first unless it is already gone), then reports. */
function end() {
  ending ??= (async () => {
    const first = members();
    if (first.length > 0) {
      signal(first, 'SIGTERM');
      await waitGone(first, exited ? Math.min(graceMs, 250) : graceMs);
    }
    // Forks racing the kill are caught by looking again until nothing is left. An exited command
    // that left nothing at the first look has no one left to fork: the common case skips the
    // second scan of /proc.
    const until = Date.now() + KILL_SETTLE_MS;
    for (let again = first.length === 0 && exited ? [] : members(); again.length > 0 && Date.now() < until; again = members()) {
      signal(again, 'SIGKILL');
      await sleep(POLL_MS);
    }
    while (childPid > 0 && !exited && Date.now() < until) await sleep(POLL_MS);
    const now = counters();
    if (!limit && now.oom > baseline.oom) limit = 'memory';
    if (!limit && now.pids > baseline.pids) limit = 'pids';
    // Not exited (never spawned, or unkillable): reported as killed.
    const status = exited ? { exitCode: exitCode < 0 ? null : exitCode, signal: exitSignal || null } : { exitCode: null, signal: 'SIGKILL' };
    finish({ ...status, ...(limit ? { limit } : {}), ...(notStarted ? { notStarted } : {}) });
  })();
  return ending;
}

function finish(report = {}) {
  if (finished) return;
  finished = true;
  writeSync(2, `${STATUS_MARK}${JSON.stringify(report)}\n`);
  process.exit(0);
}

/**
 * The processes that belong to this command now (see the header), helpers excluded. Whatever was
 * started by `docker exec` has parent 0 inside the container (its parent is outside), which no
 * process of a command can fake: those are this supervisor, the other commands' supervisors and
 * execs still being entered (runc's own process, before it becomes a supervisor).
 */
function members() {
  const all = processes();
  const byPid = new Map(all.map((entry) => [entry.pid, entry]));
  const otherExecs = all.filter((entry) => entry.ppid === 0 && entry.pid !== 1 && entry.pid !== process.pid);
  // The exec (or pid 1) a process descends from; 0 when the chain is broken.
  const rootOf = (entry = NO_PROCESS) => {
    let at = byPid.get(entry.pid);
    for (let hops = 0; at !== undefined && at.ppid !== 0 && hops < 4096; hops++) at = byPid.get(at.ppid);
    return at?.pid ?? 0;
  };
  const isHelper = (entry = NO_PROCESS) => entry.ppid === 0 || entry.pid === 1 || (entry.keepalive && entry.ppid === 1);
  const byParent = new Map();
  for (const entry of all) byParent.set(entry.ppid, [...(byParent.get(entry.ppid) ?? []), entry]);
  const found = new Map();
  const add = (entry = NO_PROCESS) => {
    if (found.has(entry.pid) || isHelper(entry)) return;
    found.set(entry.pid, entry);
    for (const kid of byParent.get(entry.pid) ?? []) add(kid);
  };
  for (const kid of byParent.get(process.pid) ?? []) add(kid);
  for (const entry of all) {
    // Alone in the container: everything that is not a helper is this command's leftovers.
    if (otherExecs.length === 0 || (childPid > 0 && entry.pgrp === childPid) || holdsStdio(entry.pid)) add(entry);
  }
  // Someone else's command is never hit, whatever it shares with this one.
  const others = new Set(otherExecs.map((entry) => entry.pid));
  return [...found.values()].filter((entry) => !others.has(rootOf(entry)));
}

function processes() {
  const entries = [NO_PROCESS].slice(0, 0);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProcess(Number(name));
    if (entry && entry.state !== 'Z' && entry.state !== 'X') entries.push(entry);
  }
  return entries;
}

function readProcess(pid = 0) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      pid,
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      startTime: fields[19] ?? '',
      keepalive: fields[1] === '1' && commandLine(pid).includes(KEEPALIVE_ARG),
    };
  } catch {
    return undefined;
  }
}

function commandLine(pid = 0) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000');
  } catch {
    return [];
  }
}

function ownStdioIds() {
  const ids = new Set();
  for (const fd of [1, 2]) {
    try {
      const link = readlinkSync(`/proc/self/fd/${fd}`);
      if (/^(pipe|socket):\[\d+\]$/.test(link)) ids.add(link);
    } catch {
      // Not open: nothing to track.
    }
  }
  return ids;
}

function holdsStdio(pid = 0) {
  if (stdioIds.size === 0) return false;
  let fds = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (stdioIds.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return true;
    } catch {
      // Closed meanwhile.
    }
  }
  return false;
}

function signal(entries = [NO_PROCESS], name = 'SIGKILL') {
  for (const entry of entries) {
    const now = readProcess(entry.pid);
    if (!now || now.startTime !== entry.startTime) continue;
    try {
      process.kill(entry.pid, name);
    } catch {
      // Gone meanwhile.
    }
  }
}

async function waitGone(entries = [NO_PROCESS], limitMs = 0) {
  const until = Date.now() + limitMs;
  const alive = () =>
    entries.some((entry) => {
      const now = readProcess(entry.pid);
      return now && now.startTime === entry.startTime && now.state !== 'Z' && now.state !== 'X';
    });
  while (alive() && Date.now() < until) await sleep(POLL_MS);
}

function sleep(ms = 0) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The container's cgroup counters, as seen from inside (v1: one directory per controller; v2: the
 * container's own cgroup at the root, with a private cgroup namespace). Zero where unreadable.
 */
function counters() {
  return {
    pids: firstNumber(['/sys/fs/cgroup/pids/pids.events', '/sys/fs/cgroup/pids.events'], /^max (\d+)$/m),
    oom: firstNumber(['/sys/fs/cgroup/memory/memory.oom_control', '/sys/fs/cgroup/memory.events'], /^oom_kill (\d+)$/m),
    cpu:
      firstNumber(['/sys/fs/cgroup/cpuacct/cpuacct.usage', '/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage'], /^(\d+)$/m) ||
      firstNumber(['/sys/fs/cgroup/cpu.stat'], /^usage_usec (\d+)$/m) * 1000,
  };
}

function firstNumber(files = [''], pattern = /^(\d+)$/m) {
  for (const file of files) {
    try {
      const match = pattern.exec(readFileSync(file, 'utf8'));
      if (match) return Number(match[1]);
    } catch {
      // Not this layout.
    }
  }
  return 0;
}
