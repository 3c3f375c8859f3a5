/**
 * The catalogue a mutation audit runs: the shipped one (catalog/entries.ts) or a user's YAML file,
 * both through the same strict schema. A bad file is one ConfigError naming file:line and field.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { issueToError, formatFieldPath, YamlSource, type FieldPath } from '../../core/input/index.js';
import { ConfigError, InputError } from '../../core/errors.js';
import { SHIPPED_ENTRIES } from './catalog/entries.js';
import { catalogSchema, type Catalog, type CatalogEntry } from './catalog/schema.js';

export interface LoadedCatalog {
  /** `shipped` or the file's path, for reports and errors. */
  source: string;
  entries: CatalogEntry[];
}

export const SHIPPED_SOURCE = 'shipped';

export function shippedCatalog(): LoadedCatalog {
  const parsed = catalogSchema.safeParse({ entries: SHIPPED_ENTRIES });
  if (!parsed.success) throw new Error(`the shipped mutation catalogue is invalid: ${parsed.error.message}`);
  const problem = consistencyProblem(parsed.data);
  if (problem) throw new Error(`the shipped mutation catalogue is invalid: entries[${String(problem.path[1])}]: ${problem.message}`);
  return { source: SHIPPED_SOURCE, entries: parsed.data.entries };
}

export function loadCatalogFile(file: string): LoadedCatalog {
  if (!existsSync(file) || statSync(file).isDirectory())
    throw new InputError(`${file}: no such catalogue file (fix: check the path, or leave --catalog out to run the shipped one)`);
  const source = YamlSource.parse(file, readFileSync(file, 'utf8'));
  const raw: unknown = source.toJS() ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError({ file, ...source.rootPosition() }, 'expected a mapping with entries:', 'see docs/diagnostics.md#the-catalogue-format');
  const parsed = catalogSchema.safeParse(raw);
  if (!parsed.success) throw issueToError(source, catalogSchema, parsed.error.issues, []);
  const problem = consistencyProblem(parsed.data);
  if (problem) throw new ConfigError({ file, ...source.position(problem.path), field: formatFieldPath(problem.path) }, problem.message, problem.fix);
  return { source: file, entries: parsed.data.entries };
}

/** What the schema cannot say alone: unique ids, safe entries trip nothing, a check not both required and tolerated. */
function consistencyProblem(catalog: Catalog): { path: FieldPath; message: string; fix: string } | undefined {
  const seen = new Set<string>();
  for (const [i, entry] of catalog.entries.entries()) {
    if (seen.has(entry.id)) return { path: ['entries', i, 'id'], message: `duplicate entry id ${entry.id}`, fix: 'give each entry its own id' };
    seen.add(entry.id);
    if (entry.safe && (entry.trips.length > 0 || entry.tolerates.length > 0))
      return { path: ['entries', i, 'trips'], message: 'a safe entry must trip no check', fix: 'remove trips:/tolerates: or set safe: false' };
    if (!entry.safe && entry.trips.length === 0)
      return {
        path: ['entries', i, 'trips'],
        message: 'an entry that is not safe must name the checks it trips',
        fix: 'add trips: [check, …] or set safe: true',
      };
    const both = entry.trips.find((id) => entry.tolerates.includes(id));
    if (both) return { path: ['entries', i, 'tolerates'], message: `${both} is both required and tolerated`, fix: `remove ${both} from tolerates:` };
  }
  return undefined;
}
