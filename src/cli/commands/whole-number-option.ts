import { InputError } from '../../core/errors.js';

/** A whole-number option in [min, max], its default when not given; anything else is bad input (exit 2). */
export function wholeNumberOption(flag: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new InputError(`${flag} ${text}: expected a whole number from ${min} to ${max} (fix: e.g. ${flag} ${fallback})`);
  }
  return value;
}
