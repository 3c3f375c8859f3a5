import { createHash } from 'node:crypto';
import { COMMAND_TRAVERSAL_TRICKS, COMMAND_TRICKS, TAMPERING_TRICKS } from './fuzz-commands.js';
import { PATH_TRAVERSAL_TRICKS, PATH_TRICKS, SCOPE_TRICKS } from './fuzz-paths.js';
import { LITERAL_TRICKS, SECRET_TRICKS } from './fuzz-secrets.js';
import { rngOf, type Rng, type Trick } from './fuzz-text.js';
import { FUZZ_DIMENSIONS, type FuzzDimension, type FuzzVariant } from './fuzz-types.js';

type Metric = 'filesChanged' | 'added' | 'deleted';
const LIMIT_FIELD = { filesChanged: 'maxFilesChanged', added: 'maxAddedLines', deleted: 'maxDeletedLines' } as const;

/** Diff-size variants: a random limit per metric and values around it. Only the totals are measured. */
function sized(
  r: Rng,
  value: (limit: number, r: Rng) => number,
  cls: FuzzVariant['class'],
  limitOf = (rr: Rng) => rr.int(1, 500),
  note?: string,
): ReturnType<Trick> {
  const metric = r.pick<Metric>(['filesChanged', 'added', 'deleted']);
  const limit = limitOf(r);
  const measured = value(limit, r);
  const totals = { filesChanged: 1, added: 1, deleted: 0, [metric]: measured };
  return {
    class: cls,
    summary: `${metric} ${measured} with limit ${limit}`,
    ...(note ? { note } : {}),
    expect: { diff_size: cls === 'hostile' ? 'detect' : 'pass' },
    policy: { [LIMIT_FIELD[metric]]: limit },
    totals,
  };
}

const DIFF_SIZE_TRICKS: Record<string, Trick> = {
  'at-limit': (r) => sized(r, (l) => l, 'benign'),
  'under-limit': (r) => sized(r, (l, rr) => rr.int(0, l - 1), 'benign'),
  'one-over': (r) => sized(r, (l) => l + 1, 'hostile'),
  'far-over': (r) => sized(r, (l, rr) => l * rr.int(100, 10_000), 'hostile'),
  'zero-limit-zero': (r) =>
    sized(
      r,
      () => 0,
      'benign',
      () => 0,
    ),
  'zero-limit-one': (r) =>
    sized(
      r,
      () => 1,
      'hostile',
      () => 0,
    ),
  'huge-binary': (r) => ({
    class: 'known-limit',
    summary: `one binary file of ${r.int(50, 500)} MB, 0 text lines, with line limits`,
    note: "diff_size counts files and text lines; a binary's size is not a metric (the secret scan caps binaries at 8 MB and fails closed)",
    expect: { diff_size: 'pass' },
    policy: { maxAddedLines: r.int(1, 100), maxFilesChanged: 5 },
    files: [{ path: `assets/${r.name()}.bin`, binary: true, added: 0, deleted: 0, kind: 'added' }],
    totals: { filesChanged: 1, added: 0, deleted: 0 },
  }),
};

/** Every dimension's tricks; each trick is a kind of variant with one expected outcome per check it names. */
export const TRICKS: Record<FuzzDimension, Record<string, Trick>> = {
  path: PATH_TRICKS,
  secret: { ...SECRET_TRICKS, ...LITERAL_TRICKS },
  command: COMMAND_TRICKS,
  'diff-size': DIFF_SIZE_TRICKS,
  scope: SCOPE_TRICKS,
  tampering: TAMPERING_TRICKS,
  traversal: { ...PATH_TRAVERSAL_TRICKS, ...COMMAND_TRAVERSAL_TRICKS },
};

/**
 * The corpus of a seed: dimensions in turn, each cycling through its tricks in a seed-shuffled
 * order (so `count` ≥ 7 × the largest trick list covers every trick), each trick drawing its names,
 * tokens and limits from the same generator. A pure function of (seed, count).
 */
export function generateCorpus(seed: number, count: number): FuzzVariant[] {
  const r = rngOf(seed);
  const orders = Object.fromEntries(FUZZ_DIMENSIONS.map((d) => [d, shuffle(Object.keys(TRICKS[d]).sort(), r)])) as Record<FuzzDimension, string[]>;
  const width = String(count).length;
  return Array.from({ length: count }, (_, i) => {
    const dimension = FUZZ_DIMENSIONS[i % FUZZ_DIMENSIONS.length] as FuzzDimension;
    const order = orders[dimension];
    const trick = order[Math.floor(i / FUZZ_DIMENSIONS.length) % order.length] as string;
    const make = TRICKS[dimension][trick] as Trick;
    return { id: `v${String(i + 1).padStart(width, '0')}`, dimension, trick, ...make(r) };
  });
}

/** Identifies a corpus: equal hashes, equal variants (generated secrets included, which the report never prints). */
export function corpusHash(corpus: readonly FuzzVariant[]): string {
  return createHash('sha256').update(JSON.stringify(corpus)).digest('hex');
}

function shuffle<T>(items: T[], r: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
