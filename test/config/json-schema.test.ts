import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { taskSetJsonSchema } from '../../src/domain/config/index.js';

describe('task-set JSON Schema', () => {
  it('matches the committed schema/taskset.schema.json (run `npm run build && npm run schema` to refresh)', () => {
    const committed = JSON.parse(readFileSync('schema/taskset.schema.json', 'utf8')) as unknown;
    expect(committed).toEqual(taskSetJsonSchema());
  });

  it('rejects unknown fields and types the task fields users need completion for', () => {
    const schema = taskSetJsonSchema() as { additionalProperties: boolean; properties: { tasks: { items: { properties: Record<string, unknown> } } } };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.tasks.items.properties)).toEqual(
      expect.arrayContaining(['id', 'repo', 'instruction', 'tests', 'held_out', 'oracle', 'policy', 'limits', 'metadata', 'setup']),
    );
  });

  it('every example file points editors at the schema', () => {
    expect(readFileSync('examples/tasks.yaml', 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../schema/taskset.schema.json');
  });
});
