import { z } from 'zod';
import { indexSchema } from './registry-index.js';
import { trustFileSchema } from './trust.js';

export const TRUST_SCHEMA_ID = 'https://crucible.dev/schema/trust.schema.json';
export const PACK_INDEX_SCHEMA_ID = 'https://crucible.dev/schema/pack-index.schema.json';

/** The trust policy file (`--trust FILE`) as JSON Schema, for editors and CI linting. */
export function trustJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(trustFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: TRUST_SCHEMA_ID, title: 'Crucible pack trust policy (--trust FILE)' };
}

/** The local pack index (`--index FILE`) as JSON Schema. */
export function packIndexJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(indexSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: PACK_INDEX_SCHEMA_ID, title: 'Crucible pack index (--index FILE)' };
}
