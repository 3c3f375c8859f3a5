/**
 * The end-to-end tier's global setup: one run of the bundled examples (every task of
 * examples/tasks.yaml × oracle and nop, bwrap), made at most once per `vitest` invocation and
 * shared read-only by every test that only reads its results (test/helpers/examples.ts).
 *
 * The run is lazy: this setup only opens a socket, and the first test that asks for the run starts
 * it, so a targeted `npx vitest run test/redteam` pays nothing for it. It runs here, in vitest's
 * main process, because test files run in separate worker processes and this is the one place all
 * of them can reach; the memoized promise makes every later request wait for the same run.
 *
 * Read-only is checked, not hoped for: teardown compares the run's tree with its fingerprint taken
 * when the run ended, and fails the suite (exit code 1) naming what a test changed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { attemptBudget } from '../helpers/budget.js';
import type { ExampleRun } from '../helpers/examples.js';
import { snapshotTree, treeChanges } from '../helpers/tree-snapshot.js';

/** How many attempts the shared run makes: every example task × two agents. */
const EXAMPLE_RUN_ATTEMPTS = loadTaskSet('examples/tasks.yaml').tasks.length * 2;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cwd = project.config.root;
  const home = mkdtempSync(join(tmpdir(), 'crucible-examples-'));
  const socket = join(home, 'examples.sock');
  const root = join(home, 'run');
  let made: Promise<ExampleRun> | undefined;
  let fingerprint: Map<string, string> | undefined;

  const runOnce = (): Promise<ExampleRun> =>
    (made ??= runExamples(cwd, root).then((run) => {
      fingerprint = snapshotTree([root]);
      return run;
    }));

  const server = createServer((_request, response) => {
    runOnce().then(
      (run) => response.end(JSON.stringify(run)),
      (error: unknown) => response.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) })),
    );
  });
  await listen(server, socket);
  project.provide('crucibleExamplesSocket', socket);

  return async () => {
    await new Promise<void>((done) => server.close(() => done()));
    try {
      if (fingerprint !== undefined) {
        const changes = treeChanges(fingerprint, snapshotTree([root]));
        if (changes.length > 0) {
          // vitest prints an error thrown here but does not fail the run for it: the exit code does.
          process.exitCode = 1;
          throw new Error(`a test wrote to the shared example run (test/setup/examples.ts), which is read-only:\n${changes.slice(0, 20).join('\n')}`);
        }
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };
}

function listen(server: Server, socket: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(socket, () => done());
  });
}

/** `crucible run` on the examples with both reference agents: what each reader used to run itself. */
function runExamples(cwd: string, root: string): Promise<ExampleRun> {
  const state = join(root, '.crucible');
  const args = [
    resolve(cwd, 'bin/crucible.js'),
    'run',
    'examples/tasks.yaml',
    '--agent',
    'oracle',
    '--agent',
    'nop',
    '--sandbox',
    'bwrap',
    '--out',
    state,
    '--json',
  ];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // The same limit a test running these attempts itself would have (helpers/budget.ts).
      timeout: attemptBudget(EXAMPLE_RUN_ATTEMPTS),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (status) => {
      const runId = runIdOf(stdout);
      if (runId === undefined) fail(new Error(`the shared example run printed no run id (exit ${String(status)}):\n${stderr.slice(-4000)}`));
      else done({ root, state, runId, status, stdout, stderr, attempts: EXAMPLE_RUN_ATTEMPTS });
    });
  });
}

function runIdOf(stdout: string): string | undefined {
  try {
    const id = (JSON.parse(stdout) as { runId?: unknown }).runId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
