import { readAttemptRecord } from '../../domain/run-dir/index.js';
import { version } from '../../core/version.js';
import type { AttemptResult } from '../../core/types/index.js';
import { buildReportData, runViewOf, type BuildOptions, type ReportInput } from './data.js';
import { DEFAULT_REPORTERS, REPORT_FILES, type ReportContext, type ReporterName } from './reporter.js';
import { REPORTERS } from './reporters.js';
import type { ReportData } from './view.js';
import { webAssetsDir } from './web-assets.js';

export interface WriteReportsOptions extends ReportInput {
  /** Which reporters; DEFAULT_REPORTERS when undefined or empty. Duplicates run once. */
  reporters?: readonly ReporterName[];
  env?: NodeJS.ProcessEnv;
  /** The built web app; defaults to the package's dist/web. */
  webDir?: string;
  build?: Omit<BuildOptions, 'reports'>;
  /**
   * Re-read each attempt.json from the run directory (default true): the engine keeps slimmed
   * attempts in memory, and reports need the full evidence (failing tests, check evidence).
   */
  readAttemptFiles?: boolean;
}

export interface ReportOutcome {
  reporter: ReporterName;
  /** Absolute paths written. */
  files: string[];
  /** Set when this reporter failed; the others still ran. */
  error?: string;
}

/**
 * Writes the chosen reports into the run directory. A failing reporter never fails the run (its
 * evidence is already on disk): its error is returned for the caller to print.
 */
export async function writeReports(options: WriteReportsOptions): Promise<ReportOutcome[]> {
  const opts = options.readAttemptFiles === false ? options : { ...options, attempts: await fullAttempts(options.runDir, options.attempts) };
  const names = [...new Set(opts.reporters && opts.reporters.length > 0 ? opts.reporters : DEFAULT_REPORTERS)];
  const reports = names.flatMap((n) => (n === 'github' ? [] : [REPORT_FILES[n]]));
  const view = runViewOf(opts, reports);
  let data: Promise<ReportData> | undefined;
  const ctx: ReportContext = {
    runDir: opts.runDir,
    summary: opts.summary,
    attempts: opts.attempts,
    stats: view.stats,
    view,
    data: () => (data ??= buildReportData({ ...opts, stats: view.stats ?? undefined }, { ...opts.build, reports })),
    env: opts.env ?? process.env,
    webDir: opts.webDir ?? webAssetsDir(opts.env ?? process.env),
    toolVersion: version(),
  };
  const outcomes: ReportOutcome[] = [];
  for (const name of names) {
    try {
      outcomes.push({ reporter: name, files: await REPORTERS[name].write(ctx) });
    } catch (error) {
      outcomes.push({ reporter: name, files: [], error: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcomes;
}

/** attempt.json where it can be read and names the same attempt; the record given otherwise. */
async function fullAttempts(runDir: string, attempts: readonly AttemptResult[]): Promise<AttemptResult[]> {
  const out: AttemptResult[] = [];
  for (const a of attempts) out.push((await readAttemptRecord(runDir, a.attemptId)) ?? a);
  return out;
}
