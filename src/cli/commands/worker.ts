import pc from 'picocolors';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { resolveSandbox, sandboxTraits } from '../../infra/sandbox/index.js';
import { checkQueueReachable, parseQueueUrl, startWorker } from '../../features/distributed/index.js';
import { wholeNumber, writableStateDir } from '../args.js';
import type { CliIo } from '../io.js';
import { inSession } from '../../engine/index.js';

export interface WorkerCommandOptions {
  queue: string;
  concurrency?: string;
  sandbox?: SandboxKind;
  out: string;
  /** `--lock-ms`: how soon a killed worker's job goes to another worker. */
  lockMs?: string;
}

/**
 * `crucible worker --queue redis://…`: runs attempts for every run on the queue until stopped.
 * SIGINT/SIGTERM stop taking jobs and finish the running ones; a second signal aborts them (their
 * jobs go back to the queue when the lock expires and run elsewhere).
 */
export async function workerCommand(opts: WorkerCommandOptions, io: CliIo): Promise<void> {
  const address = parseQueueUrl('--queue', opts.queue);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, 1, 1, 256);
  const lockMs = wholeNumber('--lock-ms', opts.lockMs, 30_000, 1_000, 3_600_000);
  writableStateDir('--out', opts.out, io.cwd);
  const sandbox = await workerSandbox(opts.sandbox);
  await checkQueueReachable('--queue', address);
  const log = (line: string): void => {
    io.stderr.write(`${pc.dim(new Date().toISOString().slice(11, 19))} ${line}\n`);
  };
  const worker = await startWorker({ address, concurrency, sandbox, stateDir: opts.out, lockMs, log });
  // A worker drains on SIGTERM too: a deploy stopping it should not throw its running attempts away.
  await inSession(io.signals, () => worker.stopped, {
    terminate: 'stop',
    onSignal: (stage) => {
      if (stage === 'stop') log('stopping: no new jobs; finishing the running attempts (signal again to abort them)');
      else log('aborting the running attempts; their jobs go back to the queue');
      void worker.stop(stage === 'kill');
    },
  });
  log('worker stopped');
}

/**
 * The worker's sandbox. bwrap or local must be there now (one line, exit 2, otherwise). An engine is
 * only checked by the worker itself: a worker outlives a Docker restart, and while no engine
 * answers it takes no jobs, saying why and the fix, and takes them again once it does.
 */
async function workerSandbox(requested: SandboxKind | undefined): Promise<SandboxKind> {
  if (requested !== undefined && sandboxTraits(requested).needsDockerEngine) return requested;
  return (await resolveSandbox(requested, { allowFallback: false })).kind;
}
