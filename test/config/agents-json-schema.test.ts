import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { agentsJsonSchema } from '../../src/domain/config/index.js';

describe('agent profiles JSON Schema', () => {
  it('matches the committed schema/agents.schema.json (run `npm run build && npm run schema` to refresh)', () => {
    const committed = JSON.parse(readFileSync('schema/agents.schema.json', 'utf8')) as unknown;
    expect(committed).toEqual(agentsJsonSchema());
  });

  it('accepts the fixture agents file and rejects an unknown field and a bad enum', () => {
    const validate = new Ajv2020({ strict: false }).compile(agentsJsonSchema());
    const fixture = parse(readFileSync('test/fixtures/agents/agents.yaml', 'utf8')) as { agents: Array<Record<string, unknown>> };
    expect(validate(fixture)).toBe(true);
    const profile = fixture.agents[0] as Record<string, unknown>;
    expect(validate({ agents: [{ ...profile, set_evn: {} }] })).toBe(false);
    expect(validate({ agents: [{ ...profile, stdin: 'file' }] })).toBe(false);
  });
});
