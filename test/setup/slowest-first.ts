/**
 * The order test files start in (vitest.config.ts, `sequence.sequencer`): the slowest first, by the
 * durations recorded in test/durations.json, so that the long files overlap everything else instead
 * of starting last and running alone. vitest's own order reads a cache a fresh clone does not have.
 *
 * - a file with no recorded duration (new since the last recording) starts first, larger first:
 *   nothing says it is short;
 * - the files of a tier that shares its workers (`isolate: false`, the unit tier) start last,
 *   one after another, so one worker runs them all without starting a process per file;
 * - everything else, longest recorded duration first.
 *
 * `npm run test:durations` records the durations again (test/setup/record-durations.ts).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const DURATIONS_FILE = resolve('test/durations.json');

/** Milliseconds per test file, keyed by its path from the repository root with forward slashes. */
export type Durations = Record<string, number>;

export function readDurations(file = DURATIONS_FILE): Durations {
  if (!existsSync(file)) return {};
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: expected an object of file path to milliseconds`);
  return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
}

export function fileKey(root: string, moduleId: string): string {
  return relative(root, moduleId).split('\\').join('/');
}

/** What ordering needs of a test file: where it is and whether its tier shares workers. */
export interface SequencedFile {
  moduleId: string;
  project: { config: { isolate: boolean } };
}

/** The files in the order they should start (the rules above); `sizeOf` ranks unrecorded files. */
export function slowestFirst<T extends SequencedFile>(files: readonly T[], durations: Durations, root: string, sizeOf: (file: string) => number): T[] {
  const band = (file: T): number => {
    if (!file.project.config.isolate) return 2;
    return durations[fileKey(root, file.moduleId)] === undefined ? 0 : 1;
  };
  const weight = (file: T): number => durations[fileKey(root, file.moduleId)] ?? (band(file) === 0 ? sizeOf(file.moduleId) : 0);
  return [...files].sort((a, b) => band(a) - band(b) || weight(b) - weight(a));
}

export default class SlowestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return Promise.resolve(slowestFirst(files, readDurations(), this.ctx.config.root, (file) => statSync(file).size));
  }
}
