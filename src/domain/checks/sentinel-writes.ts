import type { SentinelWrite } from '../../core/types/index.js';
import type { CheckInput } from './types.js';

function key(write: SentinelWrite): string {
  return `${write.target}\n${write.via}\n${write.file ?? ''}:${write.line ?? ''}`;
}

/**
 * Writes the Node sentinel refused in the verification and held-out runs, less those the baseline
 * run (the repository before the change) made at the same place: those are the repository's own.
 */
export function sentinelWrites(input: Pick<CheckInput, 'tests' | 'heldOut' | 'baselineTests'>): SentinelWrite[] {
  const before = new Set((input.baselineTests?.runnerWrites ?? []).map(key));
  const seen = new Set<string>();
  const writes: SentinelWrite[] = [];
  for (const write of [...(input.tests?.runnerWrites ?? []), ...(input.heldOut?.runnerWrites ?? [])]) {
    const k = key(write);
    if (before.has(k) || seen.has(k)) continue;
    seen.add(k);
    writes.push(write);
  }
  return writes;
}
