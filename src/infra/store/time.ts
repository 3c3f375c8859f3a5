import { HistoryError } from './errors.js';

/*
 * Timestamps are stored as UTC ISO-8601 strings with milliseconds (`Date#toISOString`), so that
 * text order is time order and `since` filters and day buckets can use plain indexed comparisons.
 */

const DURATION = /^(\d+)\s*(m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO_DATE_START = /^\d{4}-\d{2}-\d{2}/;

/** Normalises a timestamp on its way in; offsets like `+02:00` would otherwise break text order. */
export function toStoredTimestamp(value: string, field: string): string {
  const ms = ISO_DATE_START.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new HistoryError(`${field} is not an ISO timestamp: '${value}'`);
  return new Date(ms).toISOString();
}

/**
 * Turns a `since` filter into the stored timestamp form. Accepts a Date, an ISO timestamp or date
 * (`2025-01-31`, read as UTC midnight), or a duration back from `now`: `30m`, `24h`, `7d`, `2w`.
 */
export function parseSince(since: string | Date, now: Date = new Date()): string {
  if (since instanceof Date) {
    if (Number.isNaN(since.getTime())) throw new HistoryError('since is an invalid Date');
    return since.toISOString();
  }
  const trimmed = since.trim();
  const duration = DURATION.exec(trimmed);
  if (duration) {
    const [, amount, unit] = duration;
    return new Date(now.getTime() - Number(amount) * (UNIT_MS[unit ?? ''] ?? 0)).toISOString();
  }
  if (ISO_DATE_START.test(trimmed)) return toStoredTimestamp(trimmed, 'since');
  throw new HistoryError(`since must be an ISO timestamp or a duration like 24h or 7d, got '${since}'`);
}
