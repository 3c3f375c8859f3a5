import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { buildBaseline, identityText, readBaseline, readRunOutcomes, serializeBaseline, type BaselineFile } from '../../features/baseline/index.js';
import { InputError, OptionError } from '../../core/errors.js';
import { UNSCORED_CAUSES } from '../../core/types/index.js';
import { flagOf } from '../option-flags.js';
import { table } from '../format.js';
import { shownPath, type CliIo } from '../io.js';
import { shellWord } from '../../core/format/index.js';

export interface BaselineSaveOptions {
  /** The baseline file to write. */
  out: string;
  /** Crucible's state directory the run is in. */
  stateDir: string;
}

/** `crucible baseline save <run-id> --out FILE`: the run's outcomes as a committed baseline. */
export async function baselineSaveCommand(runId: string, opts: BaselineSaveOptions, io: CliIo): Promise<void> {
  const run = await readRunOutcomes(opts.stateDir, runId).catch((error: unknown) => {
    // Here the state directory is --state-dir: --out names the baseline file.
    throw error instanceof OptionError ? error.renamed((field) => (field === 'stateDir' ? '--state-dir' : flagOf(field))) : error;
  });
  const baseline = buildBaseline(run, opts.out);
  try {
    await mkdir(dirname(opts.out), { recursive: true });
    await writeFile(opts.out, serializeBaseline(baseline));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new InputError(`--out ${opts.out}: cannot be written (${code}) (fix: pick a file path you can write, e.g. --out baselines/main.json)`);
  }
  const agents = [...new Set(baseline.entries.map((e) => e.agent.spec))];
  const tasks = new Set(baseline.entries.map((e) => e.taskId));
  // The file holds the task set relative to itself; the command runs from here.
  const taskSet = shownPath(io, resolve(dirname(resolve(io.cwd, opts.out)), baseline.taskSet));
  const out = shownPath(io, opts.out);
  io.stdout.write(
    `baseline ${out}: run ${baseline.sourceRun}, ${tasks.size} task(s), agents ${agents.join(', ')}, ${baseline.trials} trial(s) each\n` +
      `next: commit it, and gate each change with: crucible gate ${shellWord(taskSet)} --baseline ${shellWord(out)}\n`,
  );
}

/** `crucible baseline show FILE`: what a baseline holds, per agent and task. */
export async function baselineShowCommand(file: string, opts: { json?: boolean }, io: CliIo): Promise<void> {
  const baseline = readBaseline(file);
  if (opts.json) {
    io.stdout.write(serializeBaseline(baseline));
    return;
  }
  io.stdout.write(`${formatBaseline(file, baseline)}\n`);
}

export function formatBaseline(file: string, b: BaselineFile): string {
  const rows = b.entries.map((e) => {
    const scored = e.attempts.filter((a) => !UNSCORED_CAUSES.has(a.cause));
    const passes = scored.filter((a) => a.verdict === 'PASS').length;
    const causes = [...new Set(e.attempts.map((a) => a.cause))].join(', ');
    const checks = [...new Set(e.attempts.flatMap((a) => a.failedChecks))].join(', ');
    return [identityText(e.agent), e.taskId, e.taskVersion, `${passes}/${scored.length}`, causes, checks || '-'];
  });
  return [
    `baseline ${file} (version ${b.version}): run ${b.sourceRun}, task set ${b.taskSet}, ${b.trials} trial(s), saved ${b.createdAt}`,
    table(['agent', 'task', 'version', 'passed', 'causes', 'failed checks'], rows),
  ].join('\n');
}
