import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { suiteJsonSchema } from '../../src/features/suite/index.js';
import { SMOKE_SUITE } from './fixtures.js';

describe('suite JSON Schema', () => {
  it('matches the committed schema/suite.schema.json (run `npm run build && npm run schema` to refresh)', () => {
    expect(JSON.parse(readFileSync('schema/suite.schema.json', 'utf8')) as unknown).toEqual(suiteJsonSchema());
  });

  it('accepts the example and the test suite, rejects an unknown field', () => {
    const validate = new Ajv2020({ strict: false }).compile(suiteJsonSchema());
    expect(validate(parse(SMOKE_SUITE))).toBe(true);
    expect(validate(parse(readFileSync('examples/suite.yaml', 'utf8')))).toBe(true);
    expect(validate({ suite: 's', task_sets: [{ path: 'a.yaml', tag: ['x'] }] })).toBe(false);
    expect(validate({ suite: 's', task_sets: [] })).toBe(false);
  });
});
