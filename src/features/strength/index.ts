/**
 * Task strength (docs/strength.md): how many near-miss wrong fixes a task's tests would pass,
 * measured by mutating the oracle's fix and grading each mutant as an attempt; and how stable the
 * task's verdict is across identical runs.
 */
export { mutantsOf, languageOf, type Mutant, type MutantSet, type MutationOperator } from './mutants.js';
export { planStrength, taskKey, type StrengthPlan, type StrengthOptions } from './plan.js';
export { judgeMutant, judgeFlake, type MutantOutcome, type MutantStatus, type TaskStrength, type TaskFlake } from './judge.js';
export { measureStrength } from './measure.js';
export { readStrengthFile, writeStrengthFile, strengthFilePath, snapshotForRun, readRunStrength, readRunStrengthTasks, type StrengthFile } from './file.js';
export { addedLinesOf, resemblingMutants, passesResemblingSurvivors, strengthOfRun } from './resemble.js';
export { summarizeTaskSet, formatStrengthSummary, WEAK_STRENGTH, type StrengthSummary } from './summary.js';
