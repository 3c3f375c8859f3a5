import type { Duplex } from 'node:stream';
import { BoundedOutput } from './bounded-output.js';
import { HELPER_ENV, SUPERVISOR_PATH } from './docker-runtime.js';
import type { PhaseContainer } from './docker-container.js';
import { SandboxSetupError } from './errors.js';
import type { ExecLimitName, ExecResult } from './executor.js';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES } from './spawn-bounded.js';
import { signalName } from './signals.js';

/** Must match docker-exec-init.ts. */
const STATUS_MARK = Buffer.from('\u0000crucible-exec-status\u0000');
/** The status line is short; this much of stderr's end is held back until the stream ends. */
const HOLDBACK_BYTES = 4096;
/** After `kill`, how long the supervisor has beyond the grace period before the container goes. */
const KILL_SLACK_MS = 5000;
const MAX_TIMER_MS = 2_147_483_647;

export interface SupervisedExec {
  container: PhaseContainer;
  /** argv prefix running the bound node. */
  node: string[];
  user: string;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  stdin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes?: number;
  killGraceMs?: number;
  cpuSeconds?: number;
}

export interface SupervisedResult extends ExecResult {
  /**
   * True when the supervisor vanished without reporting (the command killed it, or the container
   * died): what the command started can no longer be found, so the caller drops the container.
   */
  lost: boolean;
}

interface StatusReport {
  exitCode?: number | null;
  signal?: string | null;
  limit?: string;
  setupError?: string;
  notStarted?: string;
}

/**
 * Runs one command in the phase's container through the supervisor: an exec of
 * docker-exec-init.ts, given its orders on stdin, whose output is the command's plus a final
 * status line on stderr. A timeout or an abort sends it `kill`; if it does not answer in time the
 * container itself is removed, which ends everything in it.
 */
export async function runSupervised(request: SupervisedExec): Promise<SupervisedResult> {
  const graceMs = request.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const exec = await request.container.container.exec({
    Cmd: [...request.node, SUPERVISOR_PATH],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    User: request.user,
    WorkingDir: '/',
    Env: HELPER_ENV,
  });
  const startedAt = performance.now();
  const stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
  const stdout = new BoundedOutput(request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const stderr = new BoundedOutput(request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  let tail: Buffer = Buffer.alloc(0);
  /** A status mark already passed on to stderr: the supervisor writes one, last, so it is the command's. */
  let earlierMark = false;
  let timedOut = false;
  let killSent = false;
  let containerKilled = false;
  let fallback: NodeJS.Timeout | undefined;

  // The orders go first: a `kill` (an abort that came early) must follow them, not be read as them.
  const orders = { argv: request.argv, env: request.env, cwd: request.cwd, stdin: request.stdin, graceMs, cpuSeconds: request.cpuSeconds };
  stream.on('error', () => undefined);
  stream.write(`${JSON.stringify(orders)}\n`);

  const sendKill = (): void => {
    if (killSent) return;
    killSent = true;
    stream.write('kill\n', () => undefined);
    fallback = setTimeout(() => {
      containerKilled = true;
      void request.container.remove();
      stream.destroy();
    }, graceMs + KILL_SLACK_MS);
  };
  const deadline = setTimeout(
    () => {
      timedOut = true;
      sendKill();
    },
    Math.min(request.timeoutMs, MAX_TIMER_MS),
  );
  const onAbort = (): void => sendKill();
  if (request.signal?.aborted) sendKill();
  else request.signal?.addEventListener('abort', onAbort, { once: true });

  await new Promise<void>((resolve) => {
    let buffered: Buffer = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      // Docker's stream framing: [kind, 0, 0, 0, size (4 bytes, big-endian)] then the payload.
      while (buffered.length >= 8) {
        const size = buffered.readUInt32BE(4);
        if (buffered.length < 8 + size) break;
        const payload = buffered.subarray(8, 8 + size);
        if (buffered[0] === 2) {
          tail = Buffer.concat([tail, payload]);
          if (tail.length > HOLDBACK_BYTES) {
            const mark = tail.indexOf(STATUS_MARK);
            if (mark >= 0 && mark < tail.length - HOLDBACK_BYTES) earlierMark = true;
            stderr.append(tail.subarray(0, tail.length - HOLDBACK_BYTES));
            tail = tail.subarray(tail.length - HOLDBACK_BYTES);
          }
        } else {
          stdout.append(payload);
        }
        buffered = buffered.subarray(8 + size);
      }
    });
    stream.once('end', resolve);
    stream.once('close', resolve);
  });
  const durationMs = Math.round(performance.now() - startedAt);
  clearTimeout(deadline);
  clearTimeout(fallback);
  request.signal?.removeEventListener('abort', onAbort);
  stream.destroy();

  const at = tail.lastIndexOf(STATUS_MARK);
  const report = at >= 0 ? parseReport(tail.subarray(at + STATUS_MARK.length).toString('utf8')) : undefined;
  stderr.append(at >= 0 && report ? tail.subarray(0, at) : tail);
  const base = { stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated, timedOut, durationMs };
  // The status travels on the command's own stderr: it is believed only from a supervisor that
  // exited 0 (a command that printed the mark and killed its supervisor leaves a killed exec, exit
  // 128+N), and only as the one mark there: the supervisor writes exactly one, after the command.
  const trusted = report !== undefined && !containerKilled && (await settledExitCode(exec)) === 0;
  const forged = trusted && (earlierMark || tail.indexOf(STATUS_MARK) < at) ? { forgedReport: "a status mark on stderr before the supervisor's own" } : {};
  if (report?.setupError !== undefined && trusted && !('forgedReport' in forged)) throw new SandboxSetupError(`docker: ${report.setupError}`);
  if (report && trusted && (report.setupError === undefined || 'forgedReport' in forged)) {
    const limit = limitName(report.limit);
    return {
      ...base,
      exitCode: typeof report.exitCode === 'number' ? report.exitCode : null,
      signal: typeof report.signal === 'string' ? (signalName(report.signal) ?? null) : null,
      ...(limit ? { limitExceeded: limit } : {}),
      ...(typeof report.notStarted === 'string' ? { notStarted: report.notStarted } : {}),
      ...forged,
      lost: false,
    };
  }
  if (containerKilled || killSent) return { ...base, exitCode: null, signal: 'SIGKILL', lost: true };
  const code = await settledExitCode(exec);
  // The exec itself exiting 126/127 is docker's word (runc could not start the supervisor, which
  // only ever exits 0 or by a signal), never the command's: the command's own exit code is in the status.
  if ((code === 126 || code === 127) && base.stdout === '') {
    throw new SandboxSetupError(`docker could not start the command's supervisor: ${firstLine(base.stderr) || `exit ${code}`}`);
  }
  // The supervisor died without reporting: killed from inside (by the command, or the OOM killer).
  return { ...base, exitCode: null, signal: code !== null && code > 128 ? (signalName(code - 128) ?? 'SIGKILL') : 'SIGKILL', lost: true };
}

/** The exec's own exit code once docker has it (it may still say running for a moment after the stream ends). */
async function settledExitCode(exec: { inspect(): Promise<{ Running?: boolean; ExitCode?: number | null }> }): Promise<number | null> {
  for (let tries = 0; tries < 40; tries++) {
    const inspected = await exec.inspect().catch(() => undefined);
    if (inspected === undefined) return null;
    if (inspected.Running !== true) return inspected.ExitCode ?? null;
    await new Promise((resolveWait) => setTimeout(resolveWait, 25));
  }
  return null;
}

function parseReport(text: string): StatusReport | undefined {
  const line = text.split('\n')[0] ?? '';
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null ? (parsed as StatusReport) : undefined;
  } catch {
    return undefined;
  }
}

const LIMIT_NAMES: readonly ExecLimitName[] = ['pids', 'memory', 'cpu_time', 'file_size'];

function limitName(name: string | undefined): ExecLimitName | undefined {
  return LIMIT_NAMES.find((known) => known === name);
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
