/** Task authoring: `crucible task new` scaffolds a task from a fix in a git history (docs/tasks.md#scaffolding-a-task). */
export { scaffoldTask, checkRequest, defaultTestCommand, type ScaffoldRequest, type ScaffoldOptions, type ScaffoldResult } from './scaffold.js';
export { askForMissing, slug, type Answerable, type PromptStreams } from './prompt.js';
export { addTask, renderTask, type TaskYaml, type EditResult, type RenderOptions } from './taskset-edit.js';
export { splitPaths, neededTestPaths, SCAFFOLD_TEST_PATHS, type PathSplit } from './split.js';
export { initRepo, INIT_PLACEHOLDER_ID } from './init.js';
