/**
 * The test run that ends `crucible init`: the task's tests at the baseline (and with the oracle
 * when init found an uncommitted fix), with the report format confirmed by the output itself. When
 * the output is a stream format other than the one init chose, the task set is rewritten with it
 * and the run repeated once; a run that still gives no report is one line of bad input naming
 * what the output looks like and the exact line to add.
 */
import { relative } from 'node:path';
import { InputError } from '../../core/errors.js';
import { loadTaskSet } from '../../domain/config/index.js';
import { runTaskTests, type TaskTestSide, type TestSide } from '../../engine/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { rewriteInitFormat, type InitResult } from './init.js';
import type { InitFormat } from './init-detect.js';
import { sniffOutput } from './report-sniff.js';

export interface InitRunOptions {
  stateDir: string;
  sandbox: SandboxKind;
  /** Where the user stands, so the file is named as they would type it. */
  cwd: string;
  signal?: AbortSignal;
  onProgress?: (step: string) => void;
}

export interface InitRun {
  /** The result, its runner updated when the output showed another format. */
  result: InitResult;
  runs: TaskTestSide[];
  /** Set when the task set was rewritten to the format the output showed. */
  switched?: string;
}

export async function runInitTests(initial: InitResult, options: InitRunOptions): Promise<InitRun> {
  const sides: TestSide[] = initial.oracle !== undefined ? ['baseline', 'oracle'] : ['baseline'];
  const run = async (result: InitResult): Promise<TaskTestSide[]> => {
    const task = loadTaskSet(result.tasksFile).tasks.find((t) => t.id === result.taskId);
    if (task === undefined) throw new Error(`task ${result.taskId} missing from ${result.tasksFile}`);
    return runTaskTests(task, {
      stateDir: options.stateDir,
      sandbox: options.sandbox,
      sides,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  };
  let result = initial;
  // The last run's sides, so a switch can say what their output was.
  let last: TaskTestSide[] = [];
  const confirmed = await runWithConfirmedFormat(result.runner.format, async (format) => {
    if (format !== result.runner.format) {
      const seen = sniffOutput(unusable(last)?.evidence.outputTail ?? '');
      options.onProgress?.(`the output is ${seen.looksLike}: the task now reads format: ${format}`);
      result = rewriteInitFormat(result, format as InitFormat, seen.looksLike);
    }
    last = await run(result);
    return last;
  });
  const { runs, switched } = confirmed;
  const failed = unusable(runs);
  if (failed !== undefined) {
    const seen = sniffOutput(failed.evidence.outputTail);
    const file = relative(options.cwd, result.tasksFile) || result.tasksFile;
    const side = failed.at === 'baseline' ? 'at the baseline' : 'with the oracle applied';
    const fix =
      seen.format !== undefined && seen.format === result.runner.format
        ? `the ${seen.format} output itself is not usable: run the command in the repository and check that every test reports once`
        : `make it write JUnit XML to "$CRUCIBLE_JUNIT", or print TAP on stdout and add the line \`format: tap\` under tests: in ${file}`;
    throw new InputError(
      `${file}: tasks[id=${result.taskId}].tests.command: the run ${side} gives no usable report (${failed.evidence.invalidReason ?? ''}); its output is ${seen.looksLike} (fix: ${fix})`.replace(
        /\s*\n\s*/g,
        ' ',
      ),
    );
  }
  return { result, runs, ...(switched !== undefined ? { switched } : {}) };
}

/**
 * Runs `runOnce` with the chosen format; when a run gives no usable report but its output is in
 * another stream format Crucible reads, runs once more with that format. `switched` names it.
 */
export async function runWithConfirmedFormat(
  chosen: InitFormat | undefined,
  runOnce: (format: InitFormat | undefined) => Promise<TaskTestSide[]>,
): Promise<{ runs: TaskTestSide[]; format: InitFormat | undefined; switched?: InitFormat }> {
  const runs = await runOnce(chosen);
  const failed = unusable(runs);
  if (failed === undefined) return { runs, format: chosen };
  const seen = sniffOutput(failed.evidence.outputTail).format;
  if (seen === undefined || seen === chosen) return { runs, format: chosen };
  return { runs: await runOnce(seen), format: seen, switched: seen };
}

export function unusable(runs: readonly TaskTestSide[]): TaskTestSide | undefined {
  return runs.find((r) => r.evidence.invalidReason !== undefined);
}
