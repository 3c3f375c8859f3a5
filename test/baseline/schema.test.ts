import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { baselineJsonSchema } from '../../src/features/baseline/index.js';

describe('baseline JSON Schema', () => {
  // Refresh after a change: npm run build, then
  // Regenerate with `npm run schema` (or `crucible schema baseline --out schema/baseline.schema.json`).
  it('matches the committed schema/baseline.schema.json', () => {
    const committed = JSON.parse(readFileSync('schema/baseline.schema.json', 'utf8')) as unknown;
    expect(committed).toEqual(baselineJsonSchema());
  });

  it('requires the format version and rejects unknown fields', () => {
    const schema = baselineJsonSchema() as { required: string[]; additionalProperties: boolean; properties: { version: { const: number } } };
    expect(schema.required).toEqual(expect.arrayContaining(['version', 'createdAt', 'sourceRun', 'taskSet', 'trials', 'entries']));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.version.const).toBe(1);
  });
});
