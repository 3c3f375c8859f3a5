import { createHash } from 'node:crypto';
import { z } from 'zod';
import { schemaError } from '../../core/input/index.js';
import { InputError } from '../../core/errors.js';

/**
 * pack.json: every file of the pack with its SHA-256, size and kind. The root digest is the
 * SHA-256 of pack.json's exact bytes, so it commits to every file; signatures sign it.
 */
export const MANIFEST_NAME = 'pack.json';
export const PACK_FORMAT = 'crucible-pack';
export const PACK_FORMAT_VERSION = 1;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');

export const manifestFileSchema = z.strictObject({
  path: z.string().min(1),
  /** file: mode 0644; exec: mode 0755; symlink: its target is the content hashed. */
  type: z.enum(['file', 'exec', 'symlink']),
  size: z.number().int().nonnegative(),
  sha256: sha256Hex,
});

export const manifestSchema = z.strictObject({
  format: z.literal(PACK_FORMAT),
  version: z.literal(PACK_FORMAT_VERSION),
  taskset: z.string().min(1),
  files: z.array(manifestFileSchema),
});

export type ManifestFile = z.output<typeof manifestFileSchema>;
export type PackManifest = z.output<typeof manifestSchema>;

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Byte order of UTF-8, the order entries are written and checked in (locale-independent). */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The one serialization of a manifest: fixed key order, sorted files, two-space indent, final newline. */
export function serializeManifest(manifest: PackManifest): Buffer {
  const files = [...manifest.files].sort((a, b) => compareNames(a.path, b.path)).map((f) => ({ path: f.path, type: f.type, size: f.size, sha256: f.sha256 }));
  const ordered = { format: manifest.format, version: manifest.version, taskset: manifest.taskset, files };
  return Buffer.from(`${JSON.stringify(ordered, null, 2)}\n`, 'utf8');
}

// Nobody writes pack.json by hand: whatever is wrong with it, the fix is to make the pack again.
const PACK_JSON = { reference: 'docs/packs.md#format; recreate the pack with crucible pack create' };

/** Parses pack.json's bytes; a schema error names the field. It must also be in its one serialization. */
export function parseManifest(bytes: Buffer, where: string): PackManifest {
  let raw: unknown;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    raw = JSON.parse(text);
  } catch (error) {
    throw new InputError(
      `${where}: ${MANIFEST_NAME} is not valid UTF-8 JSON (${(error as Error).message.split('\n')[0]}) (fix: recreate the pack with crucible pack create)`,
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(`${where}: ${MANIFEST_NAME}`, text, manifestSchema, parsed.error.issues, PACK_JSON);
  // One serialization only: two byte forms of one manifest would give one pack two root digests.
  if (!serializeManifest(parsed.data).equals(bytes)) {
    throw new InputError(
      `${where}: ${MANIFEST_NAME} is not in canonical form (sorted files, fixed key order) (fix: recreate the pack with crucible pack create)`,
    );
  }
  return parsed.data;
}
