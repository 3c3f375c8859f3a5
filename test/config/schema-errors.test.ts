import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBaseline } from '../../src/features/baseline/index.js';
import { readCassette } from '../../src/infra/gateway/index.js';
import { parseManifest } from '../../src/features/pack/manifest.js';

/*
 * Files other than the task set fail their schema with the task set's one line: file:line:column,
 * the field, what is wrong and the fix (config/issue-to-error.ts), not a bare zod message.
 */
const dir = mkdtempSync(join(tmpdir(), 'crucible-schema-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('schema errors of other files', () => {
  it('a baseline names the line and the field, and suggests the near field for a typo', () => {
    const base = { version: 1, createdAt: 'x', sourceRun: 'r', taskSet: 't.yaml', trials: 1, entries: [] };
    const typo = file('typo.json', JSON.stringify({ ...base, trails: 1 }, null, 2));
    expect(() => readBaseline(typo)).toThrow(`${typo}:8:3: trails: unknown field "trails" (fix: did you mean "trials"?)`);
    const zero = file('zero.json', JSON.stringify({ ...base, trials: 0 }, null, 2));
    expect(() => readBaseline(zero)).toThrow(`${zero}:6:3: trials: Too small: expected number to be >=1 (fix: use a number ≥ 1)`);
  });

  it('a cassette names the line of the cassette the bad record is on', () => {
    const header = JSON.stringify({ type: 'cassette', version: 1, key: 'k', recordedAt: 'now' });
    const cassette = file('c.jsonl', `${header}\n\n${JSON.stringify({ type: 'exchange', seq: -1 })}\n`);
    expect(() => readCassette(cassette)).toThrow(new RegExp(`^${cassette}:3:\\d+: seq: Too small: expected number to be >=0 \\(fix: use a number ≥ 0\\)$`));
  });

  it("a pack's pack.json names the pack, the field and its fix", () => {
    const bytes = Buffer.from(`${JSON.stringify({ format: 'crucible-pack', version: 1, taskset: '', files: [] }, null, 2)}\n`);
    expect(() => parseManifest(bytes, 'p.zip')).toThrow(/^p\.zip: pack\.json:4:3: taskset: .* \(fix: write a non-empty value\)$/);
  });
});
