/**
 * Importers: published benchmark formats turned into Crucible task sets (`crucible import <format>`).
 * Each format has its own module; `output.ts` holds what they share (safe paths, the output
 * directory, writing the task set).
 */
export { importSweBench, type SweBenchEnvironment, type SweBenchImportOptions } from './swe-bench.js';
export { importHarbor, rewriteRewardPath, type HarborImportOptions } from './harbor.js';
export { resolveDataset, type DatasetOptions, type ResolvedDataset } from './dataset.js';
export { parseDatasetSpec, latestVersion, type DatasetSpec } from './dataset-registry.js';
export { parseTaskToml, type TomlTable, type TomlValue } from './task-toml.js';
export { dockerfileBaseImages, unmappedFields } from './field-accounting.js';
export {
  pathInside,
  prepareOutputDir,
  replaceDirInside,
  safeRelativePath,
  unsafePathProblem,
  writeFileInside,
  writeTaskSet,
  type ImportResult,
  type SkippedTask,
} from './output.js';
