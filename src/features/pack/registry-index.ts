import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { schemaError } from '../../core/input/index.js';
import { InputError } from '../../core/errors.js';
import { badPackPath } from './names.js';

/**
 * A local pack index (YAML or JSON): which packs exist, at which version, where (relative to the
 * index file) and with which archive SHA-256 and signature files.
 */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
const relativeInside = z
  .string()
  .min(1)
  .refine((p) => badPackPath(p.replace(/^\.\//, '')) === undefined, { message: 'expected a relative path inside the index directory (no .., not absolute)' });

const indexEntrySchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'expected a lowercase name: letters, digits, ".", "_" and "-"'),
  version: z.string().regex(SEMVER, 'expected a semantic version like 1.2.0'),
  path: relativeInside,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "expected the archive's SHA-256, 64 lowercase hex digits"),
  signatures: z.array(relativeInside).default([]),
  description: z.string().optional(),
});

export const indexSchema = z.strictObject({
  $schema: z.string().optional().describe('The JSON Schema this file follows (for editors); not read.'),
  packs: z.array(indexEntrySchema).describe('One entry per pack release.'),
});

export interface IndexEntry {
  name: string;
  version: string;
  /** Absolute paths, resolved against the index file's directory. */
  archive: string;
  sha256: string;
  signatureFiles: string[];
}

export function loadIndex(file: string): IndexEntry[] {
  if (!existsSync(file)) throw new InputError(`${file}: no such index file (fix: check --index)`);
  let raw: unknown;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    raw = parse(text, { uniqueKeys: true });
  } catch (error) {
    throw new InputError(`${file}: invalid YAML/JSON (${(error as Error).message.split('\n')[0]}) (fix: check the index file)`);
  }
  const parsed = indexSchema.safeParse(raw);
  if (!parsed.success)
    throw schemaError(file, text, indexSchema, parsed.error.issues, {
      reference: 'docs/packs.md#index-and-install (an index is packs: [{name, version, path, sha256, signatures?}])',
    });
  const base = dirname(resolve(file));
  const seen = new Set<string>();
  return parsed.data.packs.map((p, i) => {
    const id = `${p.name}@${p.version}`;
    if (seen.has(id)) throw new InputError(`${file}: packs[${i}]: ${id} is listed twice (fix: keep one entry per name and version)`);
    seen.add(id);
    return { name: p.name, version: p.version, archive: resolve(base, p.path), sha256: p.sha256, signatureFiles: p.signatures.map((s) => resolve(base, s)) };
  });
}

/** NAME@VERSION picks that version; NAME alone picks the highest release (prereleases only when nothing else). */
export function findInIndex(entries: readonly IndexEntry[], spec: string, indexFile: string): IndexEntry {
  const at = spec.lastIndexOf('@');
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  const named = entries.filter((e) => e.name === name);
  if (named.length === 0)
    throw new InputError(`${indexFile}: no pack named ${name} (fix: one of ${[...new Set(entries.map((e) => e.name))].join(', ') || 'none listed'})`);
  if (version !== undefined) {
    const hit = named.find((e) => e.version === version);
    if (hit === undefined) throw new InputError(`${indexFile}: ${name} has no version ${version} (fix: one of ${named.map((e) => e.version).join(', ')})`);
    return hit;
  }
  return [...named].sort((a, b) => compareSemver(b.version, a.version))[0] as IndexEntry;
}

export function compareSemver(a: string, b: string): number {
  const pa = SEMVER.exec(a);
  const pb = SEMVER.exec(b);
  if (!pa || !pb) return a.localeCompare(b);
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  if (pa[4] === pb[4]) return 0;
  if (pa[4] === undefined) return 1;
  if (pb[4] === undefined) return -1;
  return pa[4].localeCompare(pb[4], 'en', { numeric: true });
}
