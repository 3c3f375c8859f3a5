import { InputError } from '../core/errors.js';
import type { AdaptiveRunOptions } from '../engine/index.js';
import { wholeNumber } from './args.js';

export interface AdaptiveCliOptions {
  adaptive?: boolean;
  maxAttempts?: string;
  separate?: string;
  width?: string;
}

/** Most trials per task and agent an adaptive run may reach when --runs is not given. */
export const ADAPTIVE_DEFAULT_RUNS = 10;

/**
 * `--adaptive` with its budget and target, checked before anything loads; undefined without
 * --adaptive. The budget is `--max-attempts`, the run's `--max-cost-total` (dollars), or both.
 */
export function adaptiveRunOptions(opts: AdaptiveCliOptions, maxCostTotal?: string): AdaptiveRunOptions | undefined {
  if (!opts.adaptive) {
    const stray =
      opts.maxAttempts !== undefined ? '--max-attempts' : opts.separate !== undefined ? '--separate' : opts.width !== undefined ? '--width' : undefined;
    if (stray) throw new InputError(`${stray} only applies with --adaptive (fix: add --adaptive, or drop ${stray})`);
    return undefined;
  }
  if (opts.maxAttempts === undefined && maxCostTotal === undefined)
    throw new InputError('--adaptive needs a budget (fix: add --max-attempts <n>, e.g. --max-attempts 200, or --max-cost-total <usd>)');
  const budget = opts.maxAttempts === undefined ? {} : { maxAttempts: wholeNumber('--max-attempts', opts.maxAttempts, 200, 2) };
  if (opts.separate !== undefined && opts.width !== undefined) throw new InputError('--separate and --width are two targets (fix: give one of them)');
  if (opts.width !== undefined) return { ...budget, target: { kind: 'width', width: fraction('--width', opts.width, '0.1'), confidence: 0.95 } };
  const alpha = opts.separate === undefined ? 0.05 : fraction('--separate', opts.separate, '0.05');
  return { ...budget, target: { kind: 'separate', confidence: 1 - alpha } };
}

export function fraction(flag: string, text: string, example: string): number {
  const value = Number(text);
  if (!/^\s*(0?\.\d+|1(\.0*)?)\s*$/.test(text) || !(value > 0 && value < 1)) {
    throw new InputError(`${flag} ${text}: expected a number between 0 and 1 (fix: e.g. ${flag} ${example})`);
  }
  return value;
}
