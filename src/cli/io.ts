import { isAbsolute, relative, resolve } from 'node:path';
import type { SignalSource } from '../engine/index.js';

/** Where the CLI writes: process.stdout / process.stderr, or a buffer in the in-process tests. */
export interface CliStream {
  write(text: string): unknown;
  /** A terminal that can redraw (the live progress view); absent means not. */
  isTTY?: boolean;
  /** Its width, for help text and the progress view; absent means 80. */
  columns?: number;
}

/** The terminal `task new` asks missing values on. */
export interface CliPrompt {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * Everything the CLI takes from its process, handed to createProgram: the program reads no
 * `process.*` itself, so a test runs it in-process with its own streams, directory and environment.
 */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  /** Present only when stdin is a terminal: nothing else is ever asked a question. */
  prompt?: CliPrompt;
  env: Readonly<Record<string, string | undefined>>;
  /** The directory relative paths on the command line mean. */
  cwd: string;
  /** Ctrl-C and SIGTERM, for the long commands' run sessions (engine/session.ts). */
  signals: SignalSource;
}

/** The io of the real process: bin/crucible.js runs the program with this, on the signals main.ts caught first. */
export function processIo(signals: SignalSource = process): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    ...(process.stdin.isTTY === true ? { prompt: { input: process.stdin, output: process.stderr } } : {}),
    env: process.env,
    cwd: process.cwd(),
    signals,
  };
}

/**
 * A path as messages show it, so that a command printed with it runs from where the user is:
 * relative to the directory the user ran from when it lies inside it, else absolute (an
 * absolute path the user typed is never echoed back as `../../..`).
 */
export function shownPath(io: Pick<CliIo, 'cwd'>, path: string): string {
  const rel = relative(io.cwd, resolve(io.cwd, path));
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? resolve(io.cwd, path) : rel;
}
