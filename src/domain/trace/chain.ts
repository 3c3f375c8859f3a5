import { canonical, sha256 } from './canonical.js';
import { TRACE_EVENT_TYPES, TRACE_FORMAT, TRACE_VERSION, type ChainedEvent, type TraceEvent, type TraceHeader } from './events.js';

/** The chain starts from a hash of the attempt id: events cannot be spliced in from another attempt's trace. */
export function genesis(attemptId: string): string {
  return sha256(`${TRACE_FORMAT}/${TRACE_VERSION}\0${attemptId}`);
}

/** The SHA-256 of an event's canonical form (sorted keys) with its sequence number and the previous hash. */
export function eventHash(event: { seq: number; type: string; data: unknown; prev: string }): string {
  return sha256(canonical({ seq: event.seq, type: event.type, data: event.data, prev: event.prev }));
}

/** Chains `events` and returns trace.jsonl's text: the header (committing to count and last hash), then one event per line. */
export function sealTrace(ids: { attemptId: string; runId: string }, events: readonly TraceEvent[]): string {
  let prev = genesis(ids.attemptId);
  const lines: string[] = [];
  events.forEach((event, seq) => {
    const hash = eventHash({ seq, type: event.type, data: event.data, prev });
    lines.push(canonical({ seq, type: event.type, data: event.data, prev, hash }));
    prev = hash;
  });
  const header: TraceHeader = { format: TRACE_FORMAT, version: TRACE_VERSION, attemptId: ids.attemptId, runId: ids.runId, events: events.length, last: prev };
  return `${[canonical(header), ...lines].join('\n')}\n`;
}

export type ChainCheck =
  | { ok: true; header: TraceHeader; events: ChainedEvent[] }
  /** `line` is 1-based: the first line of the file that is wrong (or, for a cut file, the one missing). */
  | { ok: false; line: number; reason: string };

const HEADER_KEYS = ['attemptId', 'events', 'format', 'last', 'runId', 'version'];
const EVENT_KEYS = ['data', 'hash', 'prev', 'seq', 'type'];
const TYPES: ReadonlySet<string> = new Set(TRACE_EVENT_TYPES);

/**
 * Checks trace.jsonl's text without trusting any of it: every line canonical JSON of the expected
 * shape, every event's hash its content's, chained to the one before from the attempt's genesis, in
 * sequence, of a known type; the header's count and last hash those of the chain. An edited byte,
 * a dropped, moved or added event, a cut file or a header that does not match all fail here.
 */
export function verifyChain(text: string): ChainCheck {
  if (text.length === 0) return { ok: false, line: 1, reason: 'the file is empty' };
  if (!text.endsWith('\n')) {
    const lines = text.split('\n');
    return { ok: false, line: lines.length, reason: 'the file does not end with a newline: it was cut or edited' };
  }
  const lines = text.slice(0, -1).split('\n');
  const first = parseLine(lines[0] ?? '');
  if (!first.ok) return { ok: false, line: 1, reason: `header: ${first.reason}` };
  const header = first.value as Record<string, unknown>;
  if (!sameKeys(header, HEADER_KEYS) || header.format !== TRACE_FORMAT) return { ok: false, line: 1, reason: `header: not a ${TRACE_FORMAT} header` };
  if (header.version !== TRACE_VERSION)
    return { ok: false, line: 1, reason: `header: version ${String(header.version)}, this Crucible reads ${TRACE_VERSION}` };
  if (typeof header.attemptId !== 'string' || typeof header.runId !== 'string' || !isCount(header.events) || !isHash(header.last)) {
    return { ok: false, line: 1, reason: 'header: a field has the wrong type' };
  }
  const events: ChainedEvent[] = [];
  let prev = genesis(header.attemptId);
  for (let i = 1; i < lines.length; i++) {
    const line = i + 1;
    const parsed = parseLine(lines[i] ?? '');
    if (!parsed.ok) return { ok: false, line, reason: parsed.reason };
    const event = parsed.value as Record<string, unknown>;
    if (!sameKeys(event, EVENT_KEYS)) return { ok: false, line, reason: `an event has exactly the keys ${EVENT_KEYS.join(', ')}` };
    if (event.seq !== i - 1)
      return { ok: false, line, reason: `event number ${String(event.seq)} where ${i - 1} belongs: an event was dropped, moved or added` };
    if (typeof event.type !== 'string' || !TYPES.has(event.type)) return { ok: false, line, reason: `unknown event type ${JSON.stringify(event.type)}` };
    if (event.prev !== prev)
      return { ok: false, line, reason: 'its previous-hash is not the hash of the event before it: an event was dropped, moved or added' };
    const hash = eventHash({ seq: event.seq, type: event.type, data: event.data, prev });
    if (event.hash !== hash) return { ok: false, line, reason: 'its hash does not match its content: the event was edited' };
    events.push(event as unknown as ChainedEvent);
    prev = hash;
  }
  if (events.length < header.events) {
    return { ok: false, line: lines.length + 1, reason: `the file ends after ${events.length} event(s); the header commits to ${header.events}: it was cut` };
  }
  if (events.length > header.events) return { ok: false, line: header.events + 2, reason: `event beyond the ${header.events} the header commits to` };
  if (header.last !== prev) return { ok: false, line: 1, reason: "header: its last hash is not the chain's" };
  return { ok: true, header: header as unknown as TraceHeader, events };
}

function parseLine(line: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  // Whitespace, key order and escapes are part of what was hashed: only the canonical text is accepted.
  if (canonical(value) !== line) return { ok: false, reason: 'not in canonical form (sorted keys, no whitespace): the line was edited' };
  return { ok: true, value };
}

function sameKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value).sort();
  return own.length === keys.length && own.every((k, i) => k === keys[i]);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isHash(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}
