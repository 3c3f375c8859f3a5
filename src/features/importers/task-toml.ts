import { parse, TomlDate, TomlError as SmolTomlError } from 'smol-toml';
import { InputError } from '../../core/errors.js';

/** A TOML value as the importers read it: plain JSON-like data (dates become their TOML text). */
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

/**
 * Parses a task.toml with smol-toml, a maintained TOML 1.0 parser (task files are untrusted input,
 * and a hand-written reader refused valid TOML such as `[[task.authors]]`). A syntax error is an
 * InputError naming the file and the line; the result has plain objects only (no null prototypes,
 * no Date or BigInt values), so callers can treat it as data.
 */
export function parseTaskToml(text: string, file: string): TomlTable {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (error) {
    // The parser recurses per level of a table or value: a header of 50,000 dotted parts, or as many
    // nested arrays, runs it out of stack. That is the input's fault, said as such.
    if (error instanceof RangeError) throw tooDeep(file);
    if (!(error instanceof SmolTomlError)) throw error;
    const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
    throw new InputError(`${file}: line ${error.line}, column ${error.column}: ${reason} (fix: make it valid TOML, https://toml.io)`);
  }
  return plain(doc, 0, file) as TomlTable;
}

/** Deeper than this, a task.toml is not a task's configuration (Harbor's nests three levels). */
export const MAX_TOML_DEPTH = 64;

function tooDeep(file: string): InputError {
  return new InputError(`${file}: tables or values nested deeper than ${MAX_TOML_DEPTH} levels (fix: a task.toml nests a few levels, e.g. [verifier.env])`);
}

function plain(value: unknown, depth: number, file: string): TomlValue {
  if (depth > MAX_TOML_DEPTH) throw tooDeep(file);
  if (value instanceof TomlDate) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map((inner) => plain(inner, depth + 1, file));
  if (typeof value === 'object' && value !== null) {
    const out: TomlTable = {};
    for (const [key, inner] of Object.entries(value)) out[key] = plain(inner, depth + 1, file);
    return out;
  }
  return value as string | number | boolean;
}
