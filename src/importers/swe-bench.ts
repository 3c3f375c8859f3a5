import type { ImportResult } from './output.js';

export interface SweBenchImportOptions {
  /** The instances file: JSON Lines, or a JSON array. */
  file: string;
  /** The output directory. */
  out: string;
  /** Only these instance ids. */
  ids?: readonly string[];
  /** A directory of local git mirrors named `<owner>__<name>`. */
  repos?: string;
  /** Write into a non-empty output directory. */
  force?: boolean;
}

/** `crucible import swe-bench`: one task per instance. (Filled in by the next commit.) */
export async function importSweBench(options: SweBenchImportOptions): Promise<ImportResult> {
  void options;
  await Promise.resolve();
  throw new Error('not implemented yet');
}
