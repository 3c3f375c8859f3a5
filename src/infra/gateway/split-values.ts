import { parseSseBlock } from './sse.js';
import type { MeteredApi } from './usage-readers.js';

/**
 * Streams send text and tool arguments in small deltas, so a volatile value (a workspace path in a
 * tool call) can arrive cut in two: `{"file_path": "/tmp/at` + `tempt-1/ws/a.mjs"}`. Substitution
 * works event by event and would miss it, and the replay would hand the new agent the old path.
 * Before recording, the deltas that such a value spans are joined into the first of them (the
 * others are left with an empty delta), so each value sits whole in one event. Streams where no
 * value is split are returned unchanged.
 */
export function joinSplitValues(api: MeteredApi, events: readonly string[], values: readonly string[]): string[] {
  const needles = [...new Set(values.flatMap((v) => [v, JSON.stringify(v).slice(1, -1)]))].filter((v) => v.length > 0);
  if (needles.length === 0) return [...events];
  const slots = new Map<string, Delta[]>();
  events.forEach((raw, index) => {
    const delta = deltaOf(api, raw, index);
    if (!delta) return;
    const list = slots.get(delta.slot) ?? [];
    list.push(delta);
    slots.set(delta.slot, list);
  });
  const out = [...events];
  for (const deltas of slots.values()) {
    for (const run of splitRuns(deltas, needles)) {
      const [first, ...rest] = run as [Delta, ...Delta[]];
      out[first.index] = first.rewrite(run.map((d) => d.text).join(''));
      for (const delta of rest) out[delta.index] = delta.rewrite('');
    }
  }
  return out;
}

interface Delta {
  /** Deltas of one slot concatenate to one text (a content block, a tool call's arguments). */
  slot: string;
  index: number;
  text: string;
  /** The event's raw text with this delta's text replaced. */
  rewrite(text: string): string;
}

/** Runs of consecutive deltas that a needle spans; runs that overlap are merged. */
function splitRuns(deltas: Delta[], needles: string[]): Delta[][] {
  const starts: number[] = [];
  let joined = '';
  for (const delta of deltas) {
    starts.push(joined.length);
    joined += delta.text;
  }
  // The delta holding a character: the last whose start is at or before it (binary search).
  const owner = (offset: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const ranges: Array<[number, number]> = [];
  for (const needle of needles) {
    for (let at = joined.indexOf(needle); at !== -1; at = joined.indexOf(needle, at + 1)) {
      const from = owner(at);
      const to = owner(at + needle.length - 1);
      if (to > from) ranges.push([from, to]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([...range]);
  }
  return merged.map(([from, to]) => deltas.slice(from, to + 1));
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The delta text an event carries, where it sits in the event, and which slot it belongs to. */
function deltaOf(api: MeteredApi, raw: string, index: number): Delta | undefined {
  const event = parseSseBlock(raw);
  let data: unknown;
  try {
    data = JSON.parse(event.data ?? '');
  } catch {
    return undefined;
  }
  if (!isObject(data)) return undefined;
  const found = locate(api, data);
  if (!found) return undefined;
  const [slot, holder, key] = found;
  const text = holder[key];
  if (typeof text !== 'string') return undefined;
  return {
    slot,
    index,
    text,
    rewrite: (replacement) => {
      holder[key] = replacement;
      return withData(raw, JSON.stringify(data));
    },
  };
}

/** [slot, object holding the delta string, its key] for each protocol's delta events. */
function locate(api: MeteredApi, data: Json): [string, Json, string] | undefined {
  switch (api) {
    case 'messages': {
      const delta = data['delta'];
      if (data['type'] !== 'content_block_delta' || !isObject(delta)) return undefined;
      const key = ['text', 'partial_json', 'thinking'].find((k) => typeof delta[k] === 'string');
      return key ? [`${String(data['index'])}:${key}`, delta, key] : undefined;
    }
    case 'responses': {
      const type = data['type'];
      if (typeof type !== 'string' || !type.endsWith('.delta') || typeof data['delta'] !== 'string') return undefined;
      return [`${type}:${String(data['item_id'])}:${String(data['content_index'] ?? data['summary_index'] ?? '')}`, data, 'delta'];
    }
    case 'chat': {
      const choices = data['choices'];
      const choice = Array.isArray(choices) && choices.length === 1 ? choices[0] : undefined;
      const delta = isObject(choice) ? choice['delta'] : undefined;
      if (!isObject(delta)) return undefined;
      if (typeof delta['content'] === 'string') return ['content', delta, 'content'];
      const calls = delta['tool_calls'];
      const call = Array.isArray(calls) && calls.length === 1 ? calls[0] : undefined;
      const fn = isObject(call) ? call['function'] : undefined;
      if (isObject(fn) && typeof fn['arguments'] === 'string') return [`tool:${String((call as Json)['index'])}`, fn, 'arguments'];
      return undefined;
    }
    case 'converse':
      return undefined;
    case 'gemini': {
      const candidates = data['candidates'];
      const candidate = Array.isArray(candidates) ? candidates[0] : undefined;
      const content = isObject(candidate) ? candidate['content'] : undefined;
      const parts = isObject(content) ? content['parts'] : undefined;
      const part = Array.isArray(parts) && parts.length === 1 ? parts[0] : undefined;
      if (!isObject(part) || typeof part['text'] !== 'string') return undefined;
      return [part['thought'] === true ? 'thought' : 'text', part, 'text'];
    }
  }
}

/** The event's raw text with its data lines replaced by one, other fields and terminator kept. */
function withData(raw: string, data: string): string {
  const terminator = /(\r\n|\r|\n)+$/.exec(raw)?.[0] ?? '\n\n';
  const newline = terminator.startsWith('\r\n') ? '\r\n' : terminator[0] === '\r' ? '\r' : '\n';
  const lines = raw.slice(0, raw.length - terminator.length).split(/\r\n|\n|\r/);
  const kept: string[] = [];
  let placed = false;
  for (const line of lines) {
    if (line === 'data' || line.startsWith('data:')) {
      if (!placed) kept.push(`data: ${data}`);
      placed = true;
    } else kept.push(line);
  }
  return kept.join(newline) + terminator;
}
