import type { RunSummary } from '../../core/types/index.js';
import { writeJsonAtomic } from './atomic.js';
import { runFile } from './names.js';
import { peekJson } from './plan-file.js';

/**
 * summary.json as a reader may find it: the stable RunSummary, and what the engine adds beyond it
 * (statistics, guard counts, failure patterns) left for each reader to check, since the file may
 * come from another version.
 */
export type StoredSummary = Partial<RunSummary> & {
  stats?: unknown;
  guard?: unknown;
  failurePatterns?: unknown;
};

/** Written once, when the run ends; a live or killed run has none. */
export async function writeSummaryFile(runDir: string, summary: RunSummary): Promise<void> {
  await writeJsonAtomic(runFile(runDir, 'summary'), summary);
}

/** summary.json, or undefined when the run has not ended (or the file cannot be read). */
export function peekSummaryFile(runDir: string): StoredSummary | undefined {
  const value = peekJson(runFile(runDir, 'summary'));
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as StoredSummary) : undefined;
}
