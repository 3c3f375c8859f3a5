import { request } from 'node:http';
import { inject } from 'vitest';

/**
 * The bundled examples run once for the whole end-to-end tier (test/setup/examples.ts): every task
 * of examples/tasks.yaml with oracle and nop, `--sandbox bwrap --json`, into `<root>/.crucible`.
 * Read it, never write to it (teardown fails the suite if a test did): a test that needs to change
 * something copies what it needs into a directory of its own.
 */
export interface ExampleRun {
  /** The directory holding the state directory (nothing else of the host is in it). */
  root: string;
  /** The run's state directory, `<root>/.crucible`. */
  state: string;
  runId: string;
  /** The CLI's exit status, stdout (the --json summary) and stderr (the table and progress). */
  status: number | null;
  stdout: string;
  stderr: string;
  /** How many attempts the run planned (tasks × agents). */
  attempts: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    crucibleExamplesSocket: string;
  }
}

/**
 * The shared run, made by the first test file that asks and awaited by the others. Only in the
 * e2e project (vitest.config.ts gives it the global setup); call it from a beforeAll whose time
 * limit allows for the run's attempts (helpers/budget.ts).
 */
export function sharedExampleRun(): Promise<ExampleRun> {
  const socketPath = inject('crucibleExamplesSocket');
  if (socketPath === undefined) throw new Error('no shared example run here: sharedExampleRun() works in the e2e project only (test/tiers.ts E2E)');
  return new Promise((done, fail) => {
    const req = request({ socketPath, path: '/' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        const parsed = JSON.parse(body) as ExampleRun | { error: string };
        if ('error' in parsed) fail(new Error(`the shared example run failed: ${parsed.error}`));
        else done(parsed);
      });
    });
    req.once('error', fail);
    req.end();
  });
}
