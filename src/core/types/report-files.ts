/** Every reporter, in the order they run. */
export const REPORTER_NAMES = ['json', 'markdown', 'html', 'sarif', 'junit', 'github'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

/**
 * Where each file reporter writes, relative to the run directory. Here, below the reports, because
 * the run manifest lists them as derived files that it does not hash.
 */
export const REPORT_FILES: Readonly<Record<Exclude<ReporterName, 'github'>, string>> = {
  json: 'report.json',
  markdown: 'report.md',
  html: 'report.html',
  sarif: 'results.sarif',
  junit: 'results.junit.xml',
};
