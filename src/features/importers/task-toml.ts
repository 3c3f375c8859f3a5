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
    if (!(error instanceof SmolTomlError)) throw error;
    const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
    throw new InputError(`${file}: line ${error.line}, column ${error.column}: ${reason} (fix: make it valid TOML, https://toml.io)`);
  }
  return plain(doc) as TomlTable;
}

function plain(value: unknown): TomlValue {
  if (value instanceof TomlDate) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    const out: TomlTable = {};
    for (const [key, inner] of Object.entries(value)) out[key] = plain(inner);
    return out;
  }
  return value as string | number | boolean;
}
