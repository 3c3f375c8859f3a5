import { z } from 'zod';
import { suiteSchema } from './schema.js';

export const SUITE_SCHEMA_ID = 'https://crucible.dev/schema/suite.schema.json';

/** The JSON Schema of a suite file; `crucible schema suite` writes it, a test keeps schema/suite.schema.json fresh. */
export function suiteJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(suiteSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: SUITE_SCHEMA_ID, title: 'Crucible suite' };
}
