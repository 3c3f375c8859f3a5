/**
 * `crucible grade` and `crucible export --format swe-bench`: predictions made anywhere graded as
 * attempts of an ordinary engine run, and a run's attempts written back as predictions.
 */
export { exportSweBench, writeSweBenchExport, type SweBenchExport, type SweBenchReport } from './export-swe-bench.js';
export { gradeRunOptions } from './options.js';
export { gradeResume } from './resume.js';
export { writeSubmission, submissionFolderName, type SubmissionFolder } from './swe-bench-submission.js';
