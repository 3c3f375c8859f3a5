import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPricing, PricingError } from '../../src/infra/gateway/index.js';
import { bundledPricingPath } from '../../src/infra/gateway/pricing.js';

const dir = mkdtempSync(join(tmpdir(), 'crucible-pricing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: cacheWrite,
});

describe('bundled pricing.yaml', () => {
  const pricing = loadPricing();

  it('covers openai, anthropic, google and groq models and says when its prices are from', () => {
    for (const model of ['gpt-4.1', 'gpt-4o-mini', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'gemini-2.5-pro', 'llama-3.3-70b-versatile']) {
      expect(pricing.priceOf(model), model).toBeDefined();
    }
    expect(readFileSync(bundledPricingPath(), 'utf8')).toMatch(/# as of \d{4}-\d{2}-\d{2}/);
  });

  it('prices dated snapshots by their undated id unless the snapshot is listed itself', () => {
    expect(pricing.priceOf('claude-sonnet-4-5-20250929')).toEqual(pricing.priceOf('claude-sonnet-4-5'));
    expect(pricing.priceOf('gpt-4o-2024-08-06')).toEqual(pricing.priceOf('gpt-4o'));
    expect(pricing.priceOf('gpt-4o-2024-05-13')?.input).toBe(5);
  });

  it('gives no cost for an unknown model', () => {
    expect(pricing.costOf('gpt-99-ultra', usage(1000, 1000))).toBeUndefined();
  });
});

describe('costOf', () => {
  const path = file('costs.yaml', 'test:\n  m: { input: 2, output: 10, cache_read: 0.5, cache_write: 2.5 }\n  plain: { input: 1, output: 1 }\n');
  const pricing = loadPricing(path);

  it('bills uncached input, cache reads, cache writes and output at their own rates', () => {
    // 1000 input of which 600 read from cache and 100 written: 300 uncached.
    expect(pricing.costOf('m', usage(1000, 200, 600, 100))).toBeCloseTo((300 * 2 + 600 * 0.5 + 100 * 2.5 + 200 * 10) / 1e6, 15);
  });

  it('refuses to guess a cache price the table does not have', () => {
    expect(pricing.costOf('plain', usage(1000, 10))).toBeCloseTo(1010 / 1e6, 15);
    expect(pricing.costOf('plain', usage(1000, 10, 500))).toBeUndefined();
  });
});

describe('override files', () => {
  it('win over the bundled entries and add new models', () => {
    const pricing = loadPricing(file('override.yaml', 'openai:\n  gpt-4o: { input: 99, output: 100 }\nlocal:\n  my-finetune: { input: 0, output: 0 }\n'));
    expect(pricing.priceOf('gpt-4o')).toEqual({ input: 99, output: 100, cacheRead: undefined, cacheWrite: undefined });
    expect(pricing.priceOf('my-finetune')).toBeDefined();
    expect(pricing.priceOf('claude-sonnet-4-5')).toBeDefined();
  });

  it('name the file, the line, the field and the fix in validation errors, as a task set does', () => {
    const wrongType = file('bad-type.yaml', 'openai:\n  gpt-4o:\n    input: cheap\n    output: 1\n');
    expect(() => loadPricing(wrongType)).toThrow(PricingError);
    expect(() => loadPricing(wrongType)).toThrow(`${wrongType}:3:5: openai.gpt-4o.input: expected number, received string (fix: write a number)`);
    const missing = file('missing.yaml', 'openai:\n  gpt-4o: { input: 1 }\n');
    expect(() => loadPricing(missing)).toThrow(`${missing}:2:3: openai.gpt-4o.output: required field is missing (fix: add it)`);
    const typo = file('typo.yaml', 'openai:\n  gpt-4o: { input: 1, output: 2, cache_reads: 1 }\n');
    expect(() => loadPricing(typo)).toThrow(`${typo}:2:34: openai.gpt-4o.cache_reads: unknown field "cache_reads" (fix: did you mean "cache_read"?)`);
    const negative = file('negative.yaml', 'openai:\n  gpt-4o: { input: -1, output: 2 }\n');
    expect(() => loadPricing(negative)).toThrow(`${negative}:2:13: openai.gpt-4o.input: Too small: expected number to be >=0 (fix: use a number ≥ 0)`);
  });

  it('reject a model listed under two providers, and unreadable or broken files', () => {
    expect(() => loadPricing(file('dup.yaml', 'a:\n  m: { input: 1, output: 1 }\nb:\n  m: { input: 2, output: 2 }\n'))).toThrow('b.m: also listed under a');
    expect(() => loadPricing(join(dir, 'absent.yaml'))).toThrow(/absent\.yaml: cannot read/);
    expect(() => loadPricing(file('broken.yaml', 'openai: [\n'))).toThrow(/broken\.yaml:\d+:/);
  });
});
