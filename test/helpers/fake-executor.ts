/**
 * An in-process Executor for tests where the sandbox is not what is tested: it never starts a
 * process. `sh -c <command>` runs the handler registered for that command (default: exit 0), and
 * every request is recorded with the layout it was made under and what the workspace and HOME
 * held when it arrived.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxTraits } from '../../src/infra/sandbox/index.js';
import type { ExecRequest, ExecResult, Executor, ExecutorFactory, SandboxKind, SandboxLayout } from '../../src/infra/sandbox/index.js';

export interface RecordedExec {
  kind: SandboxKind;
  /** The shell command (`sh -c` / `bash -c` argument), or the argv joined. */
  command: string;
  request: ExecRequest;
  layout: SandboxLayout;
  /** Names at the top of the workspace (cwd) and of HOME when the command arrived. */
  workspaceEntries: string[];
  homeEntries: string[];
}

export type FakeHandler = (request: ExecRequest, layout: SandboxLayout) => Partial<ExecResult> | void;

export interface FakeExecutors {
  factory: ExecutorFactory;
  calls: RecordedExec[];
  /** How many executors were made and how many closed. */
  made: number;
  closed: number;
}

export function fakeExecutors(handlers: Record<string, FakeHandler> = {}): FakeExecutors {
  const state: FakeExecutors = {
    calls: [],
    made: 0,
    closed: 0,
    factory: (kind, layout) => {
      state.made += 1;
      let closed = false;
      return {
        kind,
        capabilities: { ...sandboxTraits(kind), network: true, filesystem: true, hiding: true, limits: [] },
        exec: async (request) => {
          // The Node sentinel's wrapper (evidence/node-sentinel.ts) passes the command as its fifth argument.
          const wrapped = request.argv[3] === 'crucible-sentinel';
          const command = wrapped
            ? (request.argv[5] ?? '')
            : request.argv[0] === 'sh' || request.argv[0] === 'bash'
              ? (request.argv[2] ?? '')
              : request.argv.join(' ');
          state.calls.push({ kind, command, request, layout, workspaceEntries: entries(request.cwd), homeEntries: entries(layout.home) });
          const answer = handlers[command]?.(request, layout) ?? {};
          return { exitCode: 0, signal: null, stdout: '', stderr: '', truncated: false, timedOut: false, durationMs: 1, ...answer };
        },
        close: async () => {
          if (!closed) state.closed += 1;
          closed = true;
        },
      } satisfies Executor;
    },
  };
  return state;
}

function entries(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/**
 * A test command's handler: reads `src/value.txt` of the copy it runs in, reports the cases
 * (ids `spec::<name>`, outcomes from the value), and leaves debris in the copy and in HOME, which
 * no later run may find. With `needs`, a run whose copy lacks that file fails as a test runner would.
 */
export function junitTests(cases: (value: string) => Record<string, boolean>, needs?: string): FakeHandler {
  return (request, layout) => {
    if (needs !== undefined && !existsSync(join(request.cwd, needs))) return { exitCode: 1, stderr: `${needs}: not found` };
    const value = readFileSync(join(request.cwd, 'src', 'value.txt'), 'utf8').trim();
    const report = request.env?.CRUCIBLE_JUNIT;
    if (report === undefined) return { exitCode: 2, stderr: 'no $CRUCIBLE_JUNIT' };
    const outcomes = Object.entries(cases(value));
    const xml = [
      `<testsuites><testsuite name="fake" tests="${outcomes.length}">`,
      ...outcomes.map(([name, passed]) =>
        passed ? `<testcase classname="spec" name="${name}"/>` : `<testcase classname="spec" name="${name}"><failure message="no"/></testcase>`,
      ),
      '</testsuite></testsuites>',
      '',
    ].join('\n');
    writeFileSync(report, xml);
    writeFileSync(join(request.cwd, 'debris.log'), 'a test run was here');
    writeFileSync(join(layout.home, '.debris'), 'a test run was here');
    return { exitCode: outcomes.every(([, passed]) => passed) ? 0 : 1 };
  };
}
