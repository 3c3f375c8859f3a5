import { resolve } from 'node:path';
import { newRunId, type RunOptions, type RunOutcome } from '../engine/index.js';
import type { CliIo } from './io.js';
import { runAndReport, type RunReportOutput } from './run-report.js';

/** Default `--concurrency` with `--queue`: attempts queued at once, which workers on many machines share. */
export const QUEUE_CONCURRENCY = 64;

/**
 * runAndReport, with the attempts run by workers when `queue` is given (a URL already checked by
 * parseQueueUrl): the run is the same local run in every other respect (plan, preflight,
 * checkpoint, history, reports). The queue is cleaned up when the run completes; an interrupted
 * run keeps it, so `crucible resume` finds the jobs the workers finished meanwhile.
 */
export async function runAndReportOn(
  io: CliIo,
  queue: string | undefined,
  options: Omit<RunOptions, 'observer' | 'signal' | 'killSignal'>,
  output: Omit<RunReportOutput, 'onInterrupt'>,
): Promise<RunOutcome> {
  if (queue === undefined) return runAndReport(io, options, output);
  const { openQueueRunner, parseQueueUrl, checkQueueReachable } = await import('../features/distributed/index.js');
  const address = parseQueueUrl('--queue', queue);
  await checkQueueReachable('--queue', address);
  // The run id is fixed here so the run's queue exists, with its task set shipped, before the run starts.
  const runId = options.resume?.runId ?? options.runId ?? newRunId();
  const queued = await openQueueRunner({
    address,
    runId,
    taskSetPath: options.taskSetPath ?? resolve(options.taskSetFile),
    stateDir: options.stateDir,
    agents: options.agents,
    ...(options.profiles ? { profiles: options.profiles } : {}),
    ...(options.models ? { models: options.models } : {}),
    onWarning: (message) => io.stderr.write(`warning ${message}\n`),
    // Printed even with -q: a run waiting on Redis must say why it is not moving.
    onNotice: (message) => io.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`),
  });
  let completed = false;
  // On the first Ctrl-C, beside the session stopping the scheduling (and starting the grace period).
  const onInterrupt = (): void => void queued.drain().catch(() => undefined);
  try {
    // The preflight still runs here, once per task: a broken task never reaches a worker.
    // A cap on the whole run reached: the jobs queued ahead that no worker took are withdrawn, as on Ctrl-C.
    const onHalted = (): void => void queued.drain('withdrawn from the queue when the run stopped starting attempts').catch(() => undefined);
    const outcome = await runAndReport(
      io,
      {
        ...options,
        runId,
        runAttempt: queued.runner,
        onHalted,
        preflight: true,
        queue: address.url,
        ...(queued.runPoolStore ? { runPoolStore: queued.runPoolStore } : {}),
      },
      { ...output, onInterrupt },
    );
    completed = outcome.summary.ended === 'completed';
    return outcome;
  } finally {
    await queued.close(completed);
  }
}
