import type { CanonicalRequest } from './canonical.js';
import type { RecordedResponse } from './cassette.js';
import { joinSplitValues } from './split-values.js';
import type { Api } from './usage-readers.js';

/** A value that differs on every run of the same attempt, and the stable text that stands for it. */
export interface VolatileValue {
  value: string;
  as: string;
}

/**
 * Patterns normalised in every request, whatever the session declares: values an agent puts in
 * its prompts that change from run to run without changing what the model should answer.
 * Order matters: timestamps before bare dates, so `2026-12-01T06:20:30Z` becomes one `<time>`.
 */
export const FIXED_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp; as: string }> = [
  { name: 'uuid', pattern: /(?<![0-9A-Za-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Za-z])/gi, as: '<uuid>' },
  {
    name: 'iso-time',
    pattern: /(?<![\w.-])\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\w-])/g,
    as: '<time>',
  },
  // Not preceded by `-` or a word character, so model snapshots (`gpt-4o-mini-2024-07-18`) keep their date.
  { name: 'iso-date', pattern: /(?<![\w.-])\d{4}-\d{2}-\d{2}(?![\w-])/g, as: '<date>' },
  {
    // "Tuesday, December 1, 2026", "December 1, 2026", "1 December 2026": how agents write today's date.
    name: 'long-date',
    pattern:
      /(?:(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),? )?(?:(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}(?:st|nd|rd|th)?,? \d{4}|\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December),? \d{4})(?!\d)/g,
    as: '<date>',
  },
  // Claude Code's environment block names the host kernel, which differs from machine to machine.
  { name: 'os-version', pattern: /(?<=OS Version: )[^\n"\\<]+/g, as: '<os>' },
  { name: 'loopback', pattern: /(?:127\.0\.0\.1|localhost|\[::1\]):\d{1,5}(?!\d)/g, as: '<loopback>' },
];

/** What the session's own gateway token becomes (it is in every base URL the agent was given). */
export const SESSION_TOKEN_AS = '<session>';

/** Shorter values would match by accident inside unrelated text. */
const MIN_VALUE_LENGTH = 4;

/** Top-level canonical fields that are never rewritten: they name the route and the model. */
const KEPT_FIELDS = new Set(['upstream', 'method', 'model', 'stream']);

type Pair = readonly [from: string, to: string];

/**
 * One session's substitutions. Requests are normalised (declared values, the session token, then
 * the fixed patterns) before they are hashed, matched or recorded. Recorded responses carry `as`
 * where the upstream wrote a declared value, and get this session's value back on replay.
 */
export class Volatility {
  /** value → as, in the request's decoded strings: raw and JSON-escaped, longest first. */
  private readonly requestPairs: Pair[];
  /** value → as in raw response text: JSON-escaped once and twice (JSON inside a JSON string). */
  private readonly recordPairs: Pair[];
  /** as → value, the inverse of recordPairs. */
  private readonly replayPairs: Pair[];
  private readonly values: string[];

  constructor(values: readonly VolatileValue[] = [], token?: string) {
    const usable = values.filter((v) => v.value.length >= MIN_VALUE_LENGTH && v.value !== v.as);
    this.values = usable.map((v) => v.value);
    const all = token === undefined ? usable : [...usable, { value: token, as: SESSION_TOKEN_AS }];
    this.requestPairs = longestFirst(all.flatMap((v) => forms(v, 2)));
    this.recordPairs = longestFirst(usable.flatMap((v) => forms(v, 3)));
    // When escaping leaves `as` unchanged but not the value (a value with `"` or `\`), the placeholder
    // cannot tell its level; it is restored JSON-escaped once, as it sits in a JSON body or event.
    this.replayPairs = longestFirst(
      usable.flatMap((v) => {
        return unique([1, 0, 2].map((level) => escaped(v, level)).map(([from, to]) => [to, from] as const));
      }),
    );
  }

  /** The canonical request with volatile values and fixed patterns replaced in every string. */
  normalise(canonical: CanonicalRequest): CanonicalRequest {
    const out: CanonicalRequest = { ...canonical };
    for (const [key, value] of Object.entries(canonical)) {
      if (!KEPT_FIELDS.has(key)) out[key] = this.rewrite(value);
    }
    return out;
  }

  /** A response's text as the cassette keeps it; a value cut across streamed deltas is joined first. */
  toRecording(response: RecordedResponse, api: Api = 'other'): RecordedResponse {
    const joined =
      api !== 'other' && response.events && this.values.length > 0 ? { ...response, events: joinSplitValues(api, response.events, this.values) } : response;
    return mapText(joined, (text) => replaceAll(text, this.recordPairs));
  }

  /** A recorded response's text as this session's agent must receive it. */
  fromRecording(response: RecordedResponse): RecordedResponse {
    return mapText(response, (text) => replaceAll(text, this.replayPairs));
  }

  private rewrite(value: unknown): unknown {
    if (typeof value === 'string') return normaliseText(replaceAll(value, this.requestPairs));
    if (Array.isArray(value)) return value.map((item) => this.rewrite(item));
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = this.rewrite(item);
    return out;
  }
}

/** The fixed patterns applied to one string. */
export function normaliseText(text: string): string {
  let out = text;
  for (const { pattern, as } of FIXED_PATTERNS) out = out.replace(pattern, as);
  return out;
}

/** The value and its `as` at each level of JSON string escaping up to `levels`, without duplicates. */
function forms(v: VolatileValue, levels: number): Pair[] {
  return unique(Array.from({ length: levels }, (_, level) => escaped(v, level)));
}

function escaped(v: VolatileValue, level: number): Pair {
  let from = v.value;
  let to = v.as;
  for (let i = 0; i < level; i++) {
    from = JSON.stringify(from).slice(1, -1);
    to = JSON.stringify(to).slice(1, -1);
  }
  return [from, to];
}

function unique(pairs: Pair[]): Pair[] {
  const seen = new Set<string>();
  return pairs.filter(([from]) => (seen.has(from) ? false : (seen.add(from), true)));
}

function longestFirst(pairs: Pair[]): Pair[] {
  return [...pairs].sort((a, b) => b[0].length - a[0].length);
}

function replaceAll(text: string, pairs: readonly Pair[]): string {
  let out = text;
  for (const [from, to] of pairs) if (out.includes(from)) out = out.split(from).join(to);
  return out;
}

function mapText(response: RecordedResponse, map: (text: string) => string): RecordedResponse {
  const out: RecordedResponse = { ...response };
  if (response.events) out.events = response.events.map(map);
  if (response.body !== undefined && response.bodyEncoding === undefined) out.body = map(response.body);
  return out;
}
