// Run reports behind one Reporter interface, and the view model the web app draws.
export { writeReports, type WriteReportsOptions, type ReportOutcome } from './write-reports.js';
export { REPORTER_NAMES, DEFAULT_REPORTERS, REPORT_FILES, isReporterName, type Reporter, type ReporterName, type ReportContext } from './reporter.js';
export { REPORTERS } from './reporters.js';
export { buildReportData, runViewOf, runInfoOf, type ReportInput, type BuildOptions } from './data.js';
export { loadAttemptArtifacts, loadTrajectory, readBounded, DEFAULT_ARTIFACT_LIMITS, type ArtifactLimits } from './artifacts.js';
export { renderMarkdown } from './markdown.js';
export { renderSarif, findingLocations, sarifLevel, SARIF_SCHEMA_URI, SARIF_VERSION, type SarifLog } from './sarif.js';
export { renderJUnit, junitCaseName, xmlAttr, xmlEscape } from './junit.js';
export { renderHtml, REPORT_DATA_ELEMENT_ID } from './html.js';
export { webAssetsDir, assertWebBundle, WebBundleMissingError } from './web-assets.js';
export { compareRuns, trendView } from './compare.js';
export { formatTrajectoryText, parseTrajectory, type ParsedTrajectory } from './trajectory.js';
export { agentInfoText } from './format.js';
export * from './view.js';
export { runInfoOfRow, runListItemOf, storedStats, attemptRowsOf, statsOfRecordedRun, taskRepoOfRows } from './history-view.js';
export { guardOfRecordedRun } from './run-guard.js';
export { environmentsOfRun } from './compare.js';
