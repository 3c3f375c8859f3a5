import { mulberry32 } from '../../domain/stats/index.js';
import type { FuzzVariant } from './fuzz-types.js';

/** A seeded source of choices: the corpus is a pure function of the seed (never Math.random). */
export interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** `length` characters from `alphabet`. */
  text(length: number, alphabet?: string): string;
  /** A short lowercase file or directory name. */
  name(): string;
}

export const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function rngOf(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const text = (length: number, alphabet = LOWER): string => Array.from({ length }, () => alphabet.charAt(Math.floor(next() * alphabet.length))).join('');
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    text,
    name: () => `${text(1, 'abcdefghijklmnopqrstuvwxyz')}${text(int(2, 9))}`,
  };
}

/** A generator of one kind of variant; the corpus adds id and dimension. */
export type Trick = (r: Rng) => Omit<FuzzVariant, 'id' | 'dimension' | 'trick'>;

/** ASCII → fullwidth forms (U+FF01…): looks the same, is another name to the filesystem and the shell. */
export function fullwidth(s: string): string {
  return [...s].map((c) => (c >= '!' && c <= '~' && c !== '/' ? String.fromCodePoint(c.codePointAt(0)! - 0x21 + 0xff01) : c)).join('');
}

/** A combining acute accent after the first letter: NFD-style, a different byte sequence. */
export function combining(s: string): string {
  const i = s.search(/[a-z]/i);
  return i === -1 ? `${s}\u0301` : `${s.slice(0, i + 1)}\u0301${s.slice(i + 1)}`;
}

const CYRILLIC: Record<string, string> = {
  a: '\u0430',
  e: '\u0435',
  o: '\u043e',
  c: '\u0441',
  p: '\u0440',
  x: '\u0445',
  i: '\u0456',
  s: '\u0455',
  u: '\u0446',
};

/** The first letter with a Cyrillic lookalike replaced by it (`s` → `ѕ`); unchanged if none. */
export function homoglyph(s: string): string {
  const i = [...s].findIndex((c) => CYRILLIC[c] !== undefined);
  if (i === -1) return `${s}\u0430`;
  const chars = [...s];
  chars[i] = CYRILLIC[chars[i] as string] as string;
  return chars.join('');
}

/** Turkish-locale upper case: `i` becomes dotted `İ` (U+0130), which no simple case folding maps back to `i`. */
export function turkishUpper(s: string): string {
  return s.replace(/i/g, '\u0130').toUpperCase();
}

/** For reports: non-ASCII as `\u{…}`, long strings cut, so a summary stays one readable line. */
export function show(s: string, max = 90): string {
  const escaped = [...s].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) > 0x7e ? `\\u{${c.codePointAt(0)!.toString(16)}}` : c)).join('');
  return escaped.length > max ? `${escaped.slice(0, max - 20)}…(${escaped.length} chars)…${escaped.slice(-12)}` : escaped;
}
