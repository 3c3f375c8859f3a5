import { z } from 'zod';
import { taskSetFileSchema } from './schema.js';
import { agentsFileSchema } from '../agents/index.js';

export const TASKSET_SCHEMA_ID = 'https://crucible.dev/schema/taskset.schema.json';

/** The JSON Schema editors use for completion; `crucible schema` writes it, a test keeps it fresh. */
export function taskSetJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(taskSetFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: TASKSET_SCHEMA_ID, title: 'Crucible task set' };
}

export const AGENTS_SCHEMA_ID = 'https://crucible.dev/schema/agents.schema.json';

/** The JSON Schema of an `--agents FILE` (the same profiles as a task set's `agents:`). */
export function agentsJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(agentsFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: AGENTS_SCHEMA_ID, title: 'Crucible agent profiles' };
}
