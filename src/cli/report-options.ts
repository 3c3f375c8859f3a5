import { relative } from 'node:path';
import type { OptionGroup } from './options.js';
import type { AttemptResult, RunStats, RunSummary } from '../core/types/index.js';
import { InputError } from '../core/errors.js';
// reporter.ts holds only names and types, so `crucible --help` still loads no report code.
import { DEFAULT_REPORTERS, isReporterName, REPORTER_NAMES, type ReporterName } from '../features/report/index.js';

export interface ReporterCliOptions {
  reporter?: string[];
}

/** `--reporter`, on the commands that write a run's reports. */
export const REPORTER_OPTIONS: OptionGroup = [
  {
    flags: '--reporter <name>',
    description: `report to write into the run directory (repeatable, or comma-separated): ${REPORTER_NAMES.join(', ')}; overrides the task set's reporters (default: ${DEFAULT_REPORTERS.join(', ')}; github only when GITHUB_STEP_SUMMARY is set)`,
    repeatable: true,
  },
];

/** Checks names, wherever they came from, and says where a bad one was written. */
export function checkReporterNames(names: readonly string[], where: string): ReporterName[] {
  const out: ReporterName[] = [];
  for (const name of names
    .flatMap((n) => n.split(','))
    .map((n) => n.trim())
    .filter(Boolean)) {
    if (!isReporterName(name)) throw new InputError(`${where} ${name}: no such reporter (fix: use one of ${REPORTER_NAMES.join(', ')})`);
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * The reporters for a run: `--reporter` wins over the task set's `reporters`; neither gives
 * undefined, which means the defaults.
 */
export function reporterOptions(opts: ReporterCliOptions, fromTaskSet?: readonly ReporterName[]): ReporterName[] | undefined {
  if (opts.reporter && opts.reporter.length > 0) return checkReporterNames(opts.reporter, '--reporter');
  return fromTaskSet && fromTaskSet.length > 0 ? [...fromTaskSet] : undefined;
}

export interface RunForReports {
  runDir: string;
  summary: RunSummary & { stats?: RunStats };
  attempts: readonly AttemptResult[];
}

/**
 * Writes the run's reports (loading the report code only now) and says where. A reporter that
 * fails is a warning, never a failed run: the evidence is already on disk.
 */
export async function writeRunReports(
  run: RunForReports,
  reporters: readonly ReporterName[] | undefined,
  log: (line: string) => void,
  cwd: string,
): Promise<void> {
  const { writeReports } = await import('../features/report/index.js');
  const outcomes = await writeReports({ runDir: run.runDir, summary: run.summary, attempts: run.attempts, stats: run.summary.stats, reporters });
  for (const o of outcomes) if (o.error) log(`warning: the ${o.reporter} report was not written: ${o.error}`);
  const html = outcomes.find((o) => o.reporter === 'html' && !o.error)?.files[0];
  if (html) log(`report: ${relative(cwd, html) || html}`);
}
