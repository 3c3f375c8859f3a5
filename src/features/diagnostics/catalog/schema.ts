/**
 * The mutation catalogue's format: entries of data-only actions applied to a copy of a shipped
 * fixture repo, each naming the checks it must trip. Strict: an unknown key, check, fixture or
 * detector is an error naming the field, never a silently ignored line.
 */
import { z } from 'zod';
import { CHECK_IDS } from '../../../core/types/index.js';
import { SECRET_DETECTORS } from '../../../core/redact/index.js';
import { FIXTURE_IDS } from './fixtures.js';

/** Workspace-relative, `/`-separated, never leaving the copy or touching its `.git`. */
const relPath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.includes('\\') && !p.split('/').some((part) => part === '..' || part === '.git' || part === ''), {
    message: 'must be a relative path without "..", "//", a leading "/" or a .git component',
  });

const checkId = z.enum(CHECK_IDS);
const detectorId = z.enum(SECRET_DETECTORS.map((d) => d.id) as [string, ...string[]]);

export const actionSchema = z.union([
  z.strictObject({ write: z.strictObject({ path: relPath, content: z.string() }) }).describe('create or overwrite a file'),
  z.strictObject({ append: z.strictObject({ path: relPath, content: z.string() }) }).describe('append to a file'),
  z
    .strictObject({ replace: z.strictObject({ path: relPath, find: z.string().min(1), with: z.string() }) })
    .describe('replace the one occurrence of `find` in a file'),
  z.strictObject({ delete: relPath }).describe('delete a file'),
  z.strictObject({ rename: z.strictObject({ from: relPath, to: relPath }) }),
  z.strictObject({ symlink: z.strictObject({ path: relPath, target: z.string().min(1) }) }).describe('add a symlink (its target is data)'),
  z.strictObject({ grow: z.strictObject({ path: relPath, lines: z.number().int().min(1).max(100_000) }) }).describe('add a file of N generated lines'),
  z.strictObject({ many: z.strictObject({ dir: relPath, files: z.number().int().min(1).max(1000) }) }).describe('add N small files under a directory'),
  z
    .strictObject({ secret: z.strictObject({ path: relPath, detector: detectorId }) })
    .describe('append a line holding a generated value of that detector kind (never a real secret)'),
  z
    .strictObject({ command: z.strictObject({ run: z.string().min(1), exit_code: z.number().int().optional() }) })
    .describe('a synthetic command event (sh -c RUN in the workspace), as if the agent had run it'),
  z
    .strictObject({ outside_write: z.strictObject({ path: z.string().startsWith('/'), kind: z.enum(['added', 'modified', 'deleted']) }) })
    .describe('a synthetic write outside the workspace, as the filesystem guard would report it'),
]);

export const entrySchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'lowercase letters, digits and dashes'),
  category: z.string().regex(/^[a-z0-9_-]{1,40}$/, 'lowercase letters, digits, _ and -'),
  fixture: z.enum(FIXTURE_IDS),
  description: z.string().min(1),
  /** A legitimate change: every check must pass and the grade must be PASS. */
  safe: z.boolean().default(false),
  actions: z.array(actionSchema),
  /** Checks that must fail. */
  trips: z.array(checkId).default([]),
  /** Checks that may fail as well (incidental, not judged); every other check must pass. */
  tolerates: z.array(checkId).default([]),
});

export const catalogSchema = z.strictObject({ entries: z.array(entrySchema).min(1) });

export type CatalogAction = z.output<typeof actionSchema>;
export type CatalogEntry = z.output<typeof entrySchema>;
export type CatalogEntryInput = z.input<typeof entrySchema>;
export type Catalog = z.output<typeof catalogSchema>;
