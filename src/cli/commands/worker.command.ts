import { Command } from 'commander';
import { concurrencyOption, sandboxOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible worker`: its options, arguments and help; the action is imported only when it runs. */
export function defineWorker(io: CliIo): Command {
  return new Command('worker')
    .description('Run attempts for distributed runs (`crucible run --queue`) from a Redis queue, until stopped.')
    .requiredOption('--queue <url>', 'the Redis the coordinators use, e.g. redis://127.0.0.1:6379/0 (a password goes in CRUCIBLE_QUEUE_PASSWORD)')
    .addOption(concurrencyOption('attempts this worker runs at once (default 1)'))
    .addOption(sandboxOption('where agents and tests run on this machine: bwrap (default on Linux), local, or docker'))
    .addOption(stateDirOption("this worker's state directory (shipped task sets, scratch attempts, caches)"))
    .option('--lock-ms <ms>', "a job's lock: a killed worker's job goes to another worker after about this long (default 30000)")
    .addHelpText(
      'after',
      `
  The worker serves every run registered on the queue: it fetches the run's task set from Redis
  (every file checked against its SHA-256), runs each attempt with the same engine as a local run,
  and sends the attempt's files back by hash. Model keys are read from this machine's environment
  by the worker's own gateway; nothing from the environment is written to Redis.

  Ctrl-C or SIGTERM stops taking jobs and finishes the running attempts; a second one aborts them
  (their jobs run again elsewhere once their lock expires).

  Exit codes: 0 stopped, 2 bad input (a bad --queue URL, no Redis answering, no sandbox).

  Examples:
    crucible worker --queue redis://127.0.0.1:6379
    crucible worker --queue redis://queue.internal:6379/2 --concurrency 4 --sandbox docker`,
    )
    .action(async (opts) => (await import('./worker.js')).workerCommand(opts, io));
}
