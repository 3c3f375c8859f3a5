import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ciJsonSchema } from '../../src/features/ci/index.js';

describe('crucible.ci.yaml JSON Schema', () => {
  it('matches the committed schema/ci.schema.json (run `npm run build && npm run schema` to refresh)', () => {
    const committed = JSON.parse(readFileSync('schema/ci.schema.json', 'utf8')) as unknown;
    expect(committed).toEqual(ciJsonSchema());
  });

  it('accepts the documented example and rejects an unknown field', () => {
    const validate = new Ajv2020({ strict: false }).compile(ciJsonSchema());
    const doc = readFileSync('docs/ci.md', 'utf8');
    const example = /```yaml\n(tests:[\s\S]*?)```/.exec(doc)?.[1] ?? '';
    expect(example).not.toBe('');
    expect(validate(parse(example))).toBe(true);
    expect(validate({ tests: { command: 'x', fail_to_pas: [] } })).toBe(false);
  });
});
