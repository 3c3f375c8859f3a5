import { stableStringify, type CanonicalRequest } from './canonical.js';

const ROUTE_FIELDS = ['upstream', 'method', 'path'];
const CONVERSATION_FIELDS = ['messages', 'input', 'contents'];

/** Lower is closer: same route first, then fewest differing fields, then longest shared conversation. */
export function distance(requested: CanonicalRequest, recorded: CanonicalRequest): number {
  let score = 0;
  for (const key of unionKeys(requested, recorded)) {
    if (same(requested[key], recorded[key])) continue;
    score += ROUTE_FIELDS.includes(key) ? 10_000 : 100;
    const a = requested[key];
    const b = recorded[key];
    if (CONVERSATION_FIELDS.includes(key) && Array.isArray(a) && Array.isArray(b)) {
      score += Math.max(a.length, b.length) - sharedPrefix(a, b);
    }
  }
  return score;
}

/**
 * The order a reader looks for a difference in: where the request went, the model, what the model
 * was told (the system prompt, then the conversation, whose first message is the instruction),
 * then the settings. The first line of a miss is the first field that differs in this order.
 */
const READING_ORDER = ['upstream', 'method', 'path', 'model', 'system', 'instructions', 'systemInstruction', 'messages', 'input', 'contents', 'tools'];

function readingRank(key: string): number {
  const at = READING_ORDER.indexOf(key);
  return at === -1 ? READING_ORDER.length : at;
}

/** One line per differing field, the first difference first (READING_ORDER): where it differs, with short excerpts of both sides. */
export function describeDifferences(requested: CanonicalRequest, recorded: CanonicalRequest, maxLines = 8): string[] {
  const lines: string[] = [];
  const keys = unionKeys(requested, recorded).sort((a, b) => readingRank(a) - readingRank(b) || (a < b ? -1 : a > b ? 1 : 0));
  for (const key of keys) {
    if (same(requested[key], recorded[key])) continue;
    const diff = firstDifference(recorded[key], requested[key], key);
    lines.push(`${diff.path}: recorded ${excerpt(diff.recorded, diff.requested)} ≠ requested ${excerpt(diff.requested, diff.recorded)}`);
  }
  if (lines.length > maxLines) return [...lines.slice(0, maxLines), `… and ${lines.length - maxLines} more fields`];
  return lines;
}

interface Difference {
  path: string;
  recorded: unknown;
  requested: unknown;
}

function firstDifference(recorded: unknown, requested: unknown, path: string): Difference {
  if (Array.isArray(recorded) && Array.isArray(requested)) {
    const shared = sharedPrefix(recorded, requested);
    if (shared < recorded.length && shared < requested.length) {
      return firstDifference(recorded[shared], requested[shared], `${path}[${shared}]`);
    }
    return {
      path: `${path}.length`,
      recorded: `${recorded.length} items`,
      requested: `${requested.length} items`,
    };
  }
  if (isPlainObject(recorded) && isPlainObject(requested)) {
    for (const key of unionKeys(recorded, requested)) {
      if (!same(recorded[key], requested[key])) return firstDifference(recorded[key], requested[key], `${path}.${key}`);
    }
  }
  return { path, recorded, requested };
}

const EXCERPT_CHARS = 60;

/** A string is shown around where it departs from the other side, so long prompts stay readable. */
function excerpt(value: unknown, other: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value !== 'string') return clip(stableStringify(value), 0);
  const from = typeof other === 'string' && value.length > EXCERPT_CHARS ? Math.max(0, commonPrefixLength(value, other) - 20) : 0;
  return clip(value, from, true);
}

function clip(text: string, from: number, quote = false): string {
  const body = text.slice(from, from + EXCERPT_CHARS);
  const shown = (from > 0 ? '…' : '') + body + (from + EXCERPT_CHARS < text.length ? '…' : '');
  return quote ? JSON.stringify(shown) : shown;
}

function commonPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function sharedPrefix(a: unknown[], b: unknown[]): number {
  let i = 0;
  while (i < a.length && i < b.length && same(a[i], b[i])) i++;
  return i;
}

function same(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unionKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
}
