import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChecks } from '../../src/domain/checks/index.js';
import { TRICKS } from '../../src/features/diagnostics/fuzz-corpus.js';
import { fuzzMarkdown } from '../../src/features/diagnostics/fuzz-report.js';
import { corpusHash, generateCorpus, runFuzz } from '../../src/features/diagnostics/fuzz.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tmp = useTempDirs();
const ALL_TRICKS = Object.values(TRICKS).reduce((n, t) => n + Object.keys(t).length, 0);
const report = (out: string, file: string): Buffer => readFileSync(join(out, 'diagnostics', 'fuzz', 'seed-7-n300', file));

describe('crucible diagnostics fuzz', () => {
  it('gives byte-identical reports for the same seed, and every variant agrees with the shipped checks', () => {
    const [a, b] = [tmp(), tmp()];
    const first = crucible(['diagnostics', 'fuzz', '--seed', '7', '--count', '300', '-o', a]);
    const second = crucible(['diagnostics', 'fuzz', '--seed', '7', '--count', '300', '-o', b]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(second.status).toBe(0);
    expect(first.stdout).toMatch(/^fuzz seed 7: 300 variants, \d+ tricks, every check agreed/);
    expect(report(a, 'report.json').equals(report(b, 'report.json'))).toBe(true);
    expect(report(a, 'report.md').equals(report(b, 'report.md'))).toBe(true);
    const json = JSON.parse(report(a, 'report.json').toString('utf8')) as { verdict: string; variants: unknown[]; seed: number };
    expect(json).toMatchObject({ verdict: 'agree', seed: 7 });
    expect(json.variants).toHaveLength(300);
  });

  it('refuses a seed that is not a whole number, in one line, with exit 2', () => {
    const r = crucible(['diagnostics', 'fuzz', '--seed', 'abc', '-o', tmp()]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--seed abc: expected a whole number/);
  });
});

describe('fuzz corpus', () => {
  it('is a function of the seed: same seed, same corpus; another seed, another corpus', () => {
    expect(corpusHash(generateCorpus(7, 200))).toBe(corpusHash(generateCorpus(7, 200)));
    expect(corpusHash(generateCorpus(8, 200))).not.toBe(corpusHash(generateCorpus(7, 200)));
    const summaries = (seed: number): string[] => generateCorpus(seed, 200).map((v) => v.summary);
    expect(summaries(8)).not.toEqual(summaries(7));
  });

  it('covers every trick of every dimension once the count allows, and the shipped checks agree on all of them', async () => {
    const result = await runFuzz({ seed: 1234, count: 7 * 40 });
    expect(result.tricks).toBe(ALL_TRICKS);
    expect(result.disagreements).toEqual([]);
    expect(result.verdict).toBe('agree');
    // Known limits are reported as such, not counted as detections.
    expect(result.knownLimits.map((k) => k.trick)).toEqual(expect.arrayContaining(['split-across-lines', 'base64', 'symlink-chain-write']));
  });

  it('lists disagreements when a check is weakened (forbidden_paths turned off)', async () => {
    const weakened = await runFuzz({
      seed: 7,
      count: 140,
      runChecks: (input) => runChecks(input).map((c) => (c.id === 'forbidden_paths' ? { ...c, passed: true } : c)),
    });
    expect(weakened.verdict).toBe('disagree');
    expect(weakened.disagreements.length).toBeGreaterThan(0);
    for (const d of weakened.disagreements)
      expect(d.judgements).toContainEqual(expect.objectContaining({ check: 'forbidden_paths', expected: 'detect', actual: 'pass' }));
    expect(weakened.dimensions.find((d) => d.dimension === 'path')?.disagreements).toBeGreaterThan(0);
    expect(fuzzMarkdown(weakened)).toMatch(/variant\(s\) disagree/);
  });
});
