/** Durations as users write them (`90s`, `10m`, `1h`, or seconds as a number) and their ceiling. */

export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/**
 * The longest timeout Crucible accepts: Node's timers hold at most 2^31-1 ms (about 24.8 days);
 * a longer delay fires at once, which would fail an agent the moment it starts.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** Also written out in messages, in the unit users write. */
export const MAX_DURATION_TEXT = '596h';

export function toMs(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return Math.round(value * 1000);
  const match = DURATION_PATTERN.exec(value);
  if (!match) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(match[1]) * unit);
}
