import { RUN_REPORT_FILES } from '../run-dir/index.js';
import type { AttemptResult, RunStats, RunSummary } from '../types/index.js';
import type { ReportData, RunView } from './view.js';

/** Every reporter, in the order they run. */
export const REPORTER_NAMES = ['json', 'markdown', 'html', 'sarif', 'junit', 'github'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

/** What a run writes when nobody chose: the files ARCHITECTURE.md lists, plus a GitHub step summary when in Actions. */
export const DEFAULT_REPORTERS: readonly ReporterName[] = ['markdown', 'html', 'sarif', 'junit', 'github'];

/** Where each file reporter writes, relative to the run directory. */
export const REPORT_FILES: Readonly<Record<Exclude<ReporterName, 'github'>, string>> = RUN_REPORT_FILES;

export function isReporterName(name: string): name is ReporterName {
  return (REPORTER_NAMES as readonly string[]).includes(name);
}

export interface ReportContext {
  runDir: string;
  summary: RunSummary;
  attempts: readonly AttemptResult[];
  stats: RunStats | null;
  /** The run view every reporter starts from (stats computed once). */
  view: RunView;
  /** The full report data with per-attempt evidence; loaded once, on first use. */
  data(): Promise<ReportData>;
  env: NodeJS.ProcessEnv;
  /** The built web app (dist/web), for the HTML report. */
  webDir: string;
  toolVersion: string;
}

/** One output format. A reporter writes its own file(s) and says which; it never prints. */
export interface Reporter {
  readonly name: ReporterName;
  write(ctx: ReportContext): Promise<string[]>;
}
