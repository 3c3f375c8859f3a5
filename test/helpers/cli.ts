import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { CliIo, CliStream } from '../../src/cli/io.js';
import { createProgram } from '../../src/cli/program.js';
import type { SessionSignal, SignalSource } from '../../src/engine/session.js';
import { attemptBudget } from './budget.js';

export const CLI = resolve('bin/crucible.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The limit for commands that run no or a few attempts (history, show, a one-task run). */
const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Runs the built CLI as a user would (`npm test` builds first), in a process of its own. Only for
 * what only a real process shows: signals, the bin, a real exit status, what modules load. Anything
 * else goes through runCli, in-process. `attempts` is how many attempts the command runs, which
 * sets how long it may take (see budget.ts).
 */
export function crucible(args: string[], options: { cwd?: string; env?: Record<string, string | undefined>; attempts?: number } = {}): CliResult {
  if (!existsSync('dist/cli/main.js')) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: 'true', ...options.env },
    timeout: options.attempts === undefined ? DEFAULT_TIMEOUT_MS : attemptBudget(options.attempts),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A stream that keeps what is written, as a pipe would (no TTY, so no live view). */
function buffer(): CliStream & { text: () => string } {
  let text = '';
  return {
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
    text: () => text,
  };
}

/** A signal source of the test's own: nothing reaches the test process's handlers. */
export class TestSignals implements SignalSource {
  private readonly emitter = new EventEmitter();
  on(signal: SessionSignal, listener: () => void): void {
    this.emitter.on(signal, listener);
  }
  off(signal: SessionSignal, listener: () => void): void {
    this.emitter.off(signal, listener);
  }
  send(signal: SessionSignal): void {
    this.emitter.emit(signal);
  }
  /** How many listeners are still attached: 0 once every session closed. */
  listening(): number {
    return this.emitter.listenerCount('SIGINT') + this.emitter.listenerCount('SIGTERM');
  }
}

export interface CapturedIo {
  io: CliIo;
  stdout(): string;
  stderr(): string;
  signals: TestSignals;
}

/** An io over buffers, for calling a command (or the program) in-process. */
export function captureIo(options: { cwd?: string; env?: Record<string, string | undefined> } = {}): CapturedIo {
  const stdout = buffer();
  const stderr = buffer();
  const signals = new TestSignals();
  const io: CliIo = {
    stdout,
    stderr,
    env: { ...process.env, NO_COLOR: '1', CI: 'true', ...options.env },
    cwd: resolve(options.cwd ?? '.'),
    signals,
  };
  // Colours depend on how the test process started (picocolors decides once); the spawned CLI runs with NO_COLOR.
  return { io, stdout: () => stripVTControlCharacters(stdout.text()), stderr: () => stripVTControlCharacters(stderr.text()), signals };
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs the CLI in-process: createProgram over buffers, `cwd` and `env`, as `crucible(args)` would
 * spawn it, with no process started. The program reads only its io; the library code it calls
 * still resolves relative paths against process.cwd() and reads some process.env (API keys), so
 * for the call the process's directory and environment are made the io's and then put back, one
 * call at a time.
 */
export function runCli(
  args: string[],
  /** `attempts` is accepted as crucible() takes it; in-process the test's own timeout bounds the call. */
  options: { cwd?: string; env?: Record<string, string | undefined>; attempts?: number } = {},
): Promise<CliResult> {
  const run = queue.then(() => runNow(args, options));
  queue = run.catch(() => undefined);
  return run;
}

async function runNow(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  const captured = captureIo(options);
  const overlay: Record<string, string | undefined> = { NO_COLOR: '1', CI: 'true', ...options.env };
  const saved = Object.fromEntries(Object.keys(overlay).map((key) => [key, process.env[key]]));
  const savedCwd = process.cwd();
  const savedExitCode = process.exitCode;
  for (const [key, value] of Object.entries(overlay)) setEnv(key, value);
  process.chdir(captured.io.cwd);
  try {
    const status = await createProgram(captured.io).run(args);
    if (captured.signals.listening() > 0) throw new Error(`crucible ${args.join(' ')}: left ${captured.signals.listening()} signal listeners behind`);
    if (process.exitCode !== savedExitCode) throw new Error(`crucible ${args.join(' ')}: set process.exitCode (the program returns its code)`);
    return { status, stdout: captured.stdout(), stderr: captured.stderr() };
  } finally {
    process.chdir(savedCwd);
    for (const [key, value] of Object.entries(saved)) setEnv(key, value);
  }
}

function setEnv(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}
