import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OnTestFinishedHandler } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { startRedis, type RedisServerOptions, type TestRedis } from '../helpers/redis.js';

/** A CLI process the test can watch line by line and kill. */
export interface Proc {
  child: ChildProcess;
  /** stdout + stderr so far. */
  output(): string;
  /** Resolves when a line matching `pattern` has been printed (or rejects when the process exits first). */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal's name) once the process is gone and its output read. */
  exited: Promise<number | string>;
}

/** Runs the built CLI (`dist/`) as a child process, as a user would in another terminal. */
export function startCli(args: string[], env: Record<string, string | undefined> = {}): Proc {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NO_COLOR: '1', CI: 'true', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    text += chunk.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  // 'close', not 'exit': it comes after the output pipes are drained, so output() is then complete.
  const exited = new Promise<number | string>((resolveExit) => child.once('close', (code, signal) => resolveExit(code ?? signal ?? 'unknown')));
  return {
    child,
    output: () => text,
    exited,
    waitFor: (pattern) =>
      new Promise((resolveWait, reject) => {
        const check = (): boolean => {
          const m = text.match(pattern);
          if (m) {
            listeners.delete(check);
            resolveWait(m);
          }
          return m !== null;
        };
        if (check()) return;
        listeners.add(check);
        void exited.then((code) => {
          if (!check()) reject(new Error(`process exited (${code}) before printing ${pattern}:\n${text.slice(-2000)}`));
        });
      }),
  };
}

/**
 * Runs the built CLI to its end without blocking the test process (spawnSync would stall the other
 * tests of a concurrent file, and with them the lines they wait for): its exit code and output.
 */
export async function runToEnd(args: string[], env: Record<string, string | undefined> = {}): Promise<{ status: number | string; output: string }> {
  const proc = startCli(args, env);
  const status = await proc.exited;
  return { status, output: proc.output() };
}

/**
 * A Redis of the test's own, stopped when it finishes: a worker takes any job on its queue, and
 * some tests restart or flush theirs, so tests that run at once (describe.concurrent) each need one.
 */
export async function redisOfTest(onTestFinished: (fn: OnTestFinishedHandler) => void, options: RedisServerOptions = {}): Promise<TestRedis> {
  const redis = await startRedis(options);
  onTestFinished(() => redis.stop());
  return redis;
}

/** `crucible worker` on the queue with its own state directory. */
export function startWorker(url: string, out: string, extra: string[] = [], env: Record<string, string | undefined> = {}): Proc {
  return startCli(['worker', '--queue', url, '--out', out, ...extra], env);
}

/** Kills a process and waits for it to be gone. */
export async function kill(proc: Proc, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill(signal);
  await proc.exited;
}

/**
 * `count` tasks whose test sleeps `sleepSeconds` once fixed (the oracle's change): an oracle attempt
 * is still verifying a while after its worker announces it, so "mid-attempt" (a kill, a Redis
 * restart) is a printed line away.
 */
export function slowTaskSet(dir: string, count: number, sleepSeconds: number): string {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'value.txt'), 'wrong\n');
  writeFileSync(
    join(repo, 'check.sh'),
    [
      `if grep -q right value.txt; then sleep ${sleepSeconds}; f=""; else f="<failure message=\\"value is wrong\\"/>"; fi`,
      'printf \'<testsuite name="s" tests="2"><testcase classname="check" name="fixed">%s</testcase><testcase classname="check" name="kept"/></testsuite>\' "$f" > "$CRUCIBLE_JUNIT"',
      '[ -z "$f" ]',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'fix.patch'), ['--- a/value.txt', '+++ b/value.txt', '@@ -1 +1 @@', '-wrong', '+right', ''].join('\n'));
  const tasks = Array.from({ length: count }, (_, i) =>
    [
      `  - id: s${i + 1}`,
      '    repo: { path: repo }',
      `    instruction: make value.txt say right (${i + 1})`,
      '    tests: { command: sh check.sh, fail_to_pass: [check::fixed], pass_to_pass: all_others }',
      '    oracle: { patch: fix.patch }',
    ].join('\n'),
  );
  const file = join(dir, 'tasks.yaml');
  writeFileSync(file, `defaults:\n  limits: { agent_timeout: 1m, test_timeout: 1m }\ntasks:\n${tasks.join('\n')}\n`);
  return file;
}
