import type { TaskStrength } from '../../src/features/strength/index.js';

/** A measured task with `survivors` of ten mutants surviving, each a comparison swap of line 1 of a.py. */
export function strengthEntry(taskId: string, key: string, strength: number, survivors: number): TaskStrength {
  return {
    taskId,
    taskKey: key,
    strength,
    counts: { killed: 10 - survivors, survived: survivors, unloadable: 0, unapplied: 0, error: 0 },
    candidates: 10,
    sampled: 10,
    sameAsOracle: 0,
    unsupportedFiles: [],
    survivors: Array.from({ length: survivors }, (_, i) => ({
      id: `m${i}`,
      operator: 'comparison',
      file: 'a.py',
      line: 1,
      before: 'a',
      after: 'b',
      patchFile: `strength/${taskId}/m${i}.patch`,
    })),
    outcomes: {},
  };
}
