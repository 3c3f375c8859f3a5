import { spawn } from 'node:child_process';
import type { StdioOptions } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import { BoundedOutput } from './bounded-output.js';
import type { ExecResult } from './executor.js';
import { collectTree, descriptorIdentities, isGone, signalProcesses } from './process-tree.js';
import type { ProcessEntry, TreeQuery } from './process-tree.js';

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_KILL_GRACE_MS = 1000;
/** How long the streams may stay open once nothing we can find holds them any more. */
const DRAIN_MS = 250;
/** How long to wait for SIGKILLed processes to be gone before reporting anyway. */
const KILL_SETTLE_MS = 2000;
const POLL_MS = 20;
const CONTROL_LIMIT_BYTES = 64 * 1024;
const FIRST_FILE_FD = 4;
/** setTimeout fires at once for longer delays. */
const MAX_TIMER_MS = 2_147_483_647;

export interface BoundedSpawnRequest {
  /** argv[0] is looked up on `env.PATH`. */
  argv: readonly string[];
  cwd: string;
  /** The complete environment; nothing is inherited. */
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL when the tree is ended. */
  killGraceMs?: number;
  /**
   * When set, the child gets a bidirectional socket as fd 3, this text is written to it (once it
   * is known, for a promise), and what the child writes back is returned as `control` (a side
   * channel the command's output cannot mix into).
   */
  control?: string | Promise<string>;
  /**
   * Each text is readable by the child on its own descriptor, from 4 on, and ends there (how bwrap
   * receives files it synthesizes with `--ro-bind-data`).
   */
  files?: readonly string[];
  /**
   * When set, the child gets one more descriptor after the files, for it to write to (how bwrap
   * tells its sandbox's pid with `--info-fd`); called with what it wrote once it closes it.
   */
  onInfo?: (text: string) => void;
  /**
   * The child's exit means its whole tree is gone: it waited for the init of a pid namespace
   * holding everything it started (bwrap), whose exit the kernel completes only once every process
   * in there is dead. The search for leftovers at exit (a walk of /proc, milliseconds on a busy
   * host) is then skipped; a timeout or abort still ends the tree as usual.
   */
  contained?: boolean;
}

export interface BoundedSpawnResult extends ExecResult {
  control?: string;
}

/**
 * Runs a command in its own process group with a deadline, bounded output, and a kill that
 * reaches the whole tree: SIGTERM, then SIGKILL after the grace period. Resolves once the command
 * has exited and its output is collected, even when grandchildren still hold the pipes (they are
 * killed, and the streams destroyed). Anything the command leaves running when it exits is ended
 * the same way, so nothing outlives an exec. Rejects only when the command cannot be spawned.
 */
export function spawnBounded(request: BoundedSpawnRequest): Promise<BoundedSpawnResult> {
  const [command, ...args] = request.argv;
  if (command === undefined) return Promise.reject(new Error('spawnBounded: argv is empty'));
  return new Promise((resolve, reject) => {
    new BoundedRun(request, command, args, resolve, reject).start();
  });
}

interface ExitStatus {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

class BoundedRun {
  private readonly stdout: BoundedOutput;
  private readonly stderr: BoundedOutput;
  private readonly control = new BoundedOutput(CONTROL_LIMIT_BYTES);
  private readonly killGraceMs: number;
  private readonly openStreams = new Set<Readable>();
  private readonly stdioIdentities = new Set<string>();
  private child: ReturnType<typeof spawn> | undefined;
  /** Set once spawned; the child leads its own process group. */
  private leaderPid: number | undefined;
  private startedAt = 0;
  private durationMs = 0;
  private exit: ExitStatus | undefined;
  private timedOut = false;
  private terminating: Promise<void> | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private settled = false;

  constructor(
    private readonly request: BoundedSpawnRequest,
    private readonly command: string,
    private readonly args: string[],
    private readonly resolve: (result: BoundedSpawnResult) => void,
    private readonly reject: (error: Error) => void,
  ) {
    const limit = request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.stdout = new BoundedOutput(limit);
    this.stderr = new BoundedOutput(limit);
    this.killGraceMs = request.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  start(): void {
    const { request } = this;
    const stdio: StdioOptions = [request.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'];
    const files = request.files ?? [];
    if (request.control !== undefined) stdio.push('pipe');
    else if (files.length > 0) stdio.push('ignore');
    for (let i = 0; i < files.length; i++) stdio.push('pipe');
    if (request.onInfo) {
      if (request.control === undefined && files.length === 0) stdio.push('ignore');
      stdio.push('pipe');
    }
    this.startedAt = performance.now();
    const child = spawn(this.command, this.args, { cwd: request.cwd, env: request.env, stdio, detached: true });
    this.child = child;
    if (child.pid !== undefined) this.recordStdioIdentities(child.pid);

    child.on('error', (error) => {
      // After a successful spawn, errors only concern signalling; the exit still arrives.
      if (this.leaderPid === undefined && child.pid === undefined) this.fail(error);
    });
    child.once('spawn', () => this.onSpawn());
    child.once('exit', (code, signal) => this.onExit({ exitCode: code, signal }));

    this.collect(child.stdout, this.stdout);
    this.collect(child.stderr, this.stderr);
    const controlStream = child.stdio[3];
    if (request.control !== undefined && isDuplex(controlStream)) {
      this.collect(controlStream, this.control);
      controlStream.on('error', () => undefined);
      const control = request.control;
      if (typeof control === 'string') controlStream.write(control);
      else
        void control.then(
          (text) => !this.settled && controlStream.write(text),
          () => undefined,
        );
    }
    const infoStream = child.stdio[FIRST_FILE_FD + files.length];
    if (request.onInfo && isDuplex(infoStream)) {
      const info = new BoundedOutput(CONTROL_LIMIT_BYTES);
      const onInfo = request.onInfo;
      infoStream.on('data', (chunk: Buffer) => info.append(chunk));
      infoStream.on('error', () => undefined);
      infoStream.once('end', () => onInfo(info.text()));
    }
    files.forEach((text, index) => {
      const stream = child.stdio[FIRST_FILE_FD + index];
      if (!isDuplex(stream)) return;
      stream.on('error', () => undefined);
      // Reading lets the socket see the child's end close, and be freed.
      stream.resume();
      stream.end(text);
    });
    if (request.stdin !== undefined && child.stdin) {
      // A command that exits without reading its stdin makes the write fail with EPIPE: not an error.
      child.stdin.on('error', () => undefined);
      child.stdin.end(request.stdin);
    }
  }

  private onSpawn(): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    this.leaderPid = pid;

    this.deadline = setTimeout(
      () => {
        this.timedOut = true;
        void this.terminate();
      },
      Math.min(this.request.timeoutMs, MAX_TIMER_MS),
    );
    const signal = this.request.signal;
    if (signal?.aborted) void this.terminate();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * Finding the holders of the command's stdio is best-effort: the identities can only be read
   * from the command itself, and one that exits at once (within a millisecond, more on a loaded
   * machine) is gone before we ask; then only its process group and ppid tree are searched. This
   * runs before stdin and the control message are written, so a command that reads them first is
   * always tracked.
   */
  private recordStdioIdentities(pid: number): void {
    // Only descriptors we created: an inherited one may be shared with processes that are not ours.
    const created = [1, 2, ...(this.request.stdin === undefined ? [] : [0]), ...(this.request.control === undefined ? [] : [3])];
    for (const identity of descriptorIdentities(pid, created)) this.stdioIdentities.add(identity);
  }

  private readonly onAbort = (): void => {
    void this.terminate();
  };

  private collect(stream: Readable | null, sink: BoundedOutput): void {
    if (!stream) return;
    this.openStreams.add(stream);
    stream.on('data', (chunk: Buffer) => sink.append(chunk));
    stream.on('error', () => undefined);
    stream.once('close', () => {
      this.openStreams.delete(stream);
      this.maybeFinish();
    });
  }

  private onExit(status: ExitStatus): void {
    this.exit = status;
    this.durationMs = Math.round(performance.now() - this.startedAt);
    clearTimeout(this.deadline);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    if (this.terminating) {
      this.maybeFinish();
      return;
    }
    const leftovers = this.leaderPid === undefined || this.request.contained === true ? [] : collectTree(this.treeQuery(false, false));
    if (leftovers.length > 0) {
      void this.terminate();
    } else if (this.openStreams.size > 0) {
      // Someone outside the group and the ppid tree (a setsid'd orphan) may hold the pipes.
      this.drainTimer = setTimeout(() => void this.terminate(), DRAIN_MS);
    }
    this.maybeFinish();
  }

  /** SIGTERM the tree, SIGKILL whatever survives the grace period, then stop waiting for output. */
  private terminate(): Promise<void> {
    this.terminating ??= this.endTree();
    return this.terminating;
  }

  private async endTree(): Promise<void> {
    if (this.leaderPid === undefined) return;
    const first = collectTree(this.treeQuery(this.exit === undefined, true));
    signalProcesses(first, 'SIGTERM');
    await waitUntilGone(first, this.killGraceMs);

    const again = collectTree(this.treeQuery(this.exit === undefined, true));
    const everyone = new Map([...first, ...again].map((entry) => [entry.pid, entry]));
    const survivors = [...everyone.values()].filter((entry) => !isGone(entry));
    signalProcesses(survivors, 'SIGKILL');
    await waitUntilGone(survivors, KILL_SETTLE_MS);

    clearTimeout(this.drainTimer);
    this.drainTimer = setTimeout(() => {
      for (const stream of this.openStreams) stream.destroy();
    }, DRAIN_MS);
    this.maybeFinish();
  }

  private treeQuery(leaderIsOurs: boolean, includeStdioHolders: boolean): TreeQuery {
    return { leader: this.leaderPid ?? -1, leaderIsOurs, stdio: this.stdioIdentities, includeStdioHolders };
  }

  private maybeFinish(): void {
    if (this.settled || !this.exit || this.openStreams.size > 0) return;
    this.settled = true;
    clearTimeout(this.drainTimer);
    this.child?.stdin?.destroy();
    const killing = this.terminating ?? Promise.resolve();
    // Report only once the kill has settled, so that no process of the tree outlives the result.
    void killing.then(() => {
      const exit = this.exit ?? { exitCode: null, signal: null };
      this.resolve({
        exitCode: exit.exitCode,
        signal: exit.signal,
        stdout: this.stdout.text(),
        stderr: this.stderr.text(),
        truncated: this.stdout.truncated || this.stderr.truncated,
        timedOut: this.timedOut,
        durationMs: this.durationMs,
        ...(this.request.control !== undefined ? { control: this.control.text() } : {}),
      });
    });
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    for (const stream of this.openStreams) stream.destroy();
    this.reject(error);
  }
}

async function waitUntilGone(entries: readonly ProcessEntry[], limitMs: number): Promise<void> {
  const until = performance.now() + limitMs;
  while (entries.some((entry) => !isGone(entry)) && performance.now() < until) {
    await sleep(POLL_MS);
  }
}

function isDuplex(stream: unknown): stream is Readable & NodeJS.WritableStream {
  return typeof stream === 'object' && stream !== null && 'write' in stream && 'on' in stream;
}
