import { z } from 'zod';
import { ciConfigSchema } from './config.js';

export const CI_SCHEMA_ID = 'https://crucible.dev/schema/ci.schema.json';

/** The JSON Schema of crucible.ci.yaml, for editor completion; `crucible schema ci` writes it, a test keeps it fresh. */
export function ciJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ciConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: CI_SCHEMA_ID, title: 'Crucible ci settings (crucible.ci.yaml)' };
}
