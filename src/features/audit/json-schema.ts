import { z } from 'zod';
import { registrySchema } from './schema.js';

export const REGISTRY_SCHEMA_ID = 'https://crucible.dev/schema/registry.schema.json';

/** registry.yaml (task families and their contracts) as JSON Schema, for editors and CI linting. */
export function registryJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(registrySchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: REGISTRY_SCHEMA_ID, title: 'Crucible benchmark registry (registry.yaml)' };
}
