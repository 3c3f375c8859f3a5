/**
 * Policy fuzzing: a seeded corpus of generated variants (fuzz-corpus.ts) run through the real
 * checks. Each variant becomes a CheckInput built directly, as the engine would build it; secret
 * variants go through the real added-lines reader on a generated patch. The report compares each
 * named check's outcome with the variant's expectation and holds nothing that varies between runs
 * of one seed (no time, no temp paths, no generated secret), so one seed gives one report, byte
 * for byte.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { effectivePolicy, runChecks, type CheckInput } from '../../domain/checks/index.js';
import { DEFAULT_TEST_PATHS } from '../../domain/config/index.js';
import { readAddedLines, type AddedLinesScan, type CommandEvent } from '../../domain/evidence/index.js';
import type { CheckId, CheckResult, DiffStats, PolicySpec, Task } from '../../core/types/index.js';
import { corpusHash, generateCorpus } from './fuzz-corpus.js';
import { FUZZ_DIMENSIONS, FUZZ_ROOTS, type Expectation, type FuzzDimension, type FuzzVariant, type VariantClass } from './fuzz-types.js';

export interface FuzzOptions {
  seed: number;
  count: number;
  /** The checks under test: the shipped ones unless a test substitutes weakened ones to see disagreements reported. */
  runChecks?: (input: CheckInput) => CheckResult[];
}

export interface Judgement {
  check: CheckId;
  expected: Expectation;
  actual: Expectation;
  /** The check's own message, kept for disagreements only. */
  message?: string;
}

export interface VariantResult {
  id: string;
  dimension: FuzzDimension;
  trick: string;
  class: VariantClass;
  summary: string;
  note?: string;
  judgements: Judgement[];
  agrees: boolean;
}

export interface DimensionTally {
  dimension: FuzzDimension;
  variants: number;
  /** Hostile variants, and how many every named check detected. */
  hostile: number;
  detected: number;
  /** Benign variants, and how many some check wrongly flagged. */
  benign: number;
  falseAlarms: number;
  knownLimit: number;
  byDesign: number;
  disagreements: number;
}

export interface FuzzReport {
  kind: 'fuzz';
  schemaVersion: 1;
  seed: number;
  count: number;
  corpusHash: string;
  /** `agree` when every judged check said what its variant expected. */
  verdict: 'agree' | 'disagree';
  tricks: number;
  dimensions: DimensionTally[];
  disagreements: Array<Omit<VariantResult, 'agrees'>>;
  /** Per trick, the documented limits the corpus exercised (expected outcomes that are not the ideal ones). */
  knownLimits: Array<{ dimension: FuzzDimension; trick: string; class: VariantClass; variants: number; note: string }>;
  variants: VariantResult[];
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const corpus = generateCorpus(options.seed, options.count);
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-fuzz-'));
  try {
    const results: VariantResult[] = [];
    const checks = options.runChecks ?? runChecks;
    for (const variant of corpus) results.push(judge(variant, outcomesOf(checks(await inputOf(variant, scratch)))));
    return summarise(options, corpusHash(corpus), results);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function outcomesOf(results: readonly CheckResult[]): Map<CheckId, { passed: boolean; message: string }> {
  return new Map(results.map((c) => [c.id as CheckId, { passed: c.passed, message: c.message }]));
}

function judge(variant: FuzzVariant, outcomes: Map<CheckId, { passed: boolean; message: string }>): VariantResult {
  const judgements = (Object.entries(variant.expect) as Array<[CheckId, Expectation]>).map(([check, expected]): Judgement => {
    const outcome = outcomes.get(check);
    const actual: Expectation = outcome?.passed === false ? 'detect' : 'pass';
    return actual === expected ? { check, expected, actual } : { check, expected, actual, message: outcome?.message ?? 'check did not run' };
  });
  return {
    id: variant.id,
    dimension: variant.dimension,
    trick: variant.trick,
    class: variant.class,
    summary: variant.summary,
    ...(variant.note ? { note: variant.note } : {}),
    judgements,
    agrees: judgements.every((j) => j.actual === j.expected),
  };
}

function summarise(options: Pick<FuzzOptions, 'seed' | 'count'>, hash: string, results: VariantResult[]): FuzzReport {
  const dimensions = FUZZ_DIMENSIONS.map((dimension): DimensionTally => {
    const of = results.filter((r) => r.dimension === dimension);
    const cls = (c: VariantClass): VariantResult[] => of.filter((r) => r.class === c);
    return {
      dimension,
      variants: of.length,
      hostile: cls('hostile').length,
      detected: cls('hostile').filter((r) => r.judgements.every((j) => j.actual === 'detect')).length,
      benign: cls('benign').length,
      falseAlarms: cls('benign').filter((r) => r.judgements.some((j) => j.actual === 'detect')).length,
      knownLimit: cls('known-limit').length,
      byDesign: cls('by-design').length,
      disagreements: of.filter((r) => !r.agrees).length,
    };
  });
  const limits = new Map<string, FuzzReport['knownLimits'][number]>();
  for (const r of results) {
    if (r.class !== 'known-limit' && r.class !== 'by-design') continue;
    const key = `${r.dimension}/${r.trick}`;
    const seen = limits.get(key);
    if (seen) seen.variants++;
    else limits.set(key, { dimension: r.dimension, trick: r.trick, class: r.class, variants: 1, note: r.note ?? '' });
  }
  const disagreements = results.filter((r) => !r.agrees).map(({ agrees: _agrees, ...rest }) => rest);
  return {
    kind: 'fuzz',
    schemaVersion: 1,
    seed: options.seed,
    count: options.count,
    corpusHash: hash,
    verdict: disagreements.length === 0 ? 'agree' : 'disagree',
    tricks: new Set(results.map((r) => `${r.dimension}/${r.trick}`)).size,
    dimensions,
    disagreements,
    knownLimits: [...limits.values()].sort((a, b) => a.dimension.localeCompare(b.dimension) || a.trick.localeCompare(b.trick)),
    variants: results,
  };
}

/** The attempt a variant describes, as the engine would hand it to the checks: clean unless the variant says otherwise. */
async function inputOf(variant: FuzzVariant, scratch: string): Promise<CheckInput> {
  const task = taskOf(variant.policy);
  const files = (variant.files ?? [{ path: 'src/app.js' }]).map((f) => ({ kind: 'modified' as const, binary: false, added: 1, deleted: 0, ...f }));
  const diff: DiffStats = variant.totals
    ? { files, ...variant.totals }
    : { files, filesChanged: files.length, added: files.reduce((s, f) => s + f.added, 0), deleted: files.reduce((s, f) => s + f.deleted, 0) };
  const run = {
    command: 'x',
    exitCode: 0,
    timedOut: false,
    durationMs: 1,
    parsed: 2,
    consistent: true,
    failToPass: { total: 1, passed: 1, failing: [] },
    passToPass: { total: 1, passed: 1, failing: [] },
    outputTail: '',
  };
  return {
    task,
    policy: effectivePolicy(task),
    diff,
    tests: run,
    cases: [
      { id: 'f', status: 'passed' },
      { id: 'p', status: 'passed' },
    ],
    baselineTests: { ...run, exitCode: 1, failToPass: { total: 1, passed: 0, failing: [{ id: 'f', reason: 'failed' }] } },
    baselineCases: [
      { id: 'f', status: 'failed' },
      { id: 'p', status: 'passed' },
    ],
    tampering: variant.tampering === null ? undefined : (variant.tampering ?? { guarded: 3, findings: [], complete: true }),
    commands: (variant.commands ?? []).map((c) => commandEvent(c.script, c.cwd ?? FUZZ_ROOTS.workspace)),
    writeRoots: { workspace: FUZZ_ROOTS.workspace, home: FUZZ_ROOTS.home, tmp: FUZZ_ROOTS.tmp, protected: [FUZZ_ROOTS.state] },
    reportDir: FUZZ_ROOTS.results,
    sandboxEnforcesFs: true,
    addedLines: variant.patch === undefined ? { files: [], complete: true } : await scan(variant, diff, scratch),
  };
}

async function scan(variant: FuzzVariant, diff: DiffStats, scratch: string): Promise<AddedLinesScan> {
  const file = join(scratch, `${variant.id}.patch`);
  await writeFile(file, variant.patch ?? '');
  // Binary files are read from a git tree; generated patches have none, so no tree is needed.
  return readAddedLines(file, diff, { gitDir: scratch, tree: 'HEAD' });
}

function taskOf(policy: Partial<PolicySpec> = {}): Pick<Task, 'id' | 'tests' | 'heldOut' | 'policy'> {
  return {
    id: 'fuzz',
    tests: { command: 'x', failToPass: ['f'], passToPass: 'all_others', testPaths: DEFAULT_TEST_PATHS },
    heldOut: undefined,
    policy: {
      preset: 'default',
      forbiddenPaths: [],
      allowedPaths: [],
      unsafeCommands: [],
      secrets: { paths: [], literals: [], presets: [] },
      severities: {},
      ...policy,
    },
  };
}

function commandEvent(script: string, cwd: string): CommandEvent {
  return {
    at: '',
    argv: ['sh', '-c', script],
    cwd,
    envNames: [],
    network: 'none',
    exitCode: 0,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 1,
  };
}

export { generateCorpus, corpusHash } from './fuzz-corpus.js';
