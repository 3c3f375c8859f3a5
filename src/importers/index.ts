/**
 * Importers: published benchmark formats turned into Crucible task sets (`crucible import <format>`).
 * Each format has its own module; `output.ts` holds what they share (safe paths, the output
 * directory, writing the task set).
 */
export { importSweBench, type SweBenchEnvironment, type SweBenchImportOptions } from './swe-bench.js';
export { importHarbor, rewriteRewardPath, type HarborImportOptions } from './harbor.js';
export { parseToml, TomlError, type TomlTable, type TomlValue } from './harbor-toml.js';
export {
  pathInside,
  prepareOutputDir,
  replaceDirInside,
  safeRelativePath,
  unsafePathProblem,
  writeFileInside,
  writeTaskSet,
  type ImportResult,
} from './output.js';
