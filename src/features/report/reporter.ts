import { REPORTER_NAMES, REPORT_FILES, type AttemptResult, type ReporterName, type RunStats, type RunSummary } from '../../core/types/index.js';
import type { ReportData, RunView } from './view.js';

// The names live with the records (types/report-files.ts) so the run manifest can list them.
export { REPORTER_NAMES, REPORT_FILES, type ReporterName };

/** What a run writes when nobody chose: the files ARCHITECTURE.md lists, plus a GitHub step summary when in Actions. */
export const DEFAULT_REPORTERS: readonly ReporterName[] = ['markdown', 'html', 'sarif', 'junit', 'github'];

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
