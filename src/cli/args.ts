import { InputError } from '../errors.js';

/** A whole number ≥ min from a flag's text, or an InputError naming the flag. */
export function wholeNumber(flag: string, text: string | undefined, fallback: number, min = 1): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new InputError(`${flag} ${text}: expected a whole number ≥ ${min} (fix: e.g. ${flag} ${Math.max(min, fallback)})`);
  }
  return value;
}
