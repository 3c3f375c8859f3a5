/** Task authoring: `crucible task new` scaffolds a task from a fix in a git history (docs/tasks.md#scaffolding-a-task). */
export { scaffoldTask, checkRequest, defaultTestCommand, type ScaffoldRequest, type ScaffoldOptions, type ScaffoldResult } from './scaffold.js';
export { askForMissing, slug, type Answerable, type PromptStreams } from './prompt.js';
export { addTask, renderTask, type TaskYaml, type EditResult, type RenderOptions } from './taskset-edit.js';
export { splitPaths, neededTestPaths, SCAFFOLD_TEST_PATHS, type PathSplit } from './split.js';
export { initRepo, INIT_PLACEHOLDER_ID, type InitResult } from './init.js';
export { runInitTests, runWithConfirmedFormat, unusable, type InitRun } from './init-run.js';
export { sniffOutput, type OutputShape } from './report-sniff.js';
export { fillTestIds, type TestIdFill } from './fill-tests.js';
export {
  mineRepository,
  MINE_SUMMARY_FILE,
  MINE_TASKS_FILE,
  type MineRequest,
  type MineOptions,
  type MineSummary,
  type MineEntry,
  type WriterSpend,
} from './mine.js';
export { detectRunner, type DetectedRunner, type InitFormat, type RunnerName } from './init-detect.js';
export { templateInstructionWriter, templateWriter, type InstructionWriter, type WrittenInstruction } from './mine-writer.js';
export { modelInstructionWriter, writerRequest, WRITER_AGENT_NAME } from './mine-model-writer.js';
