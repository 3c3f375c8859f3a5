/** One server-sent event: the exact text as it arrived, and its parsed fields. */
export interface SseEvent {
  raw: string;
  event?: string;
  /** Data lines joined by `\n`; undefined for a comment-only block. */
  data?: string;
}

/**
 * Cuts a byte stream into whole SSE blocks (each with its blank-line terminator), so events can be
 * inspected, dropped or recorded one at a time while the bytes that pass through stay unchanged.
 */
export class SseSplitter {
  private readonly decoder = new TextDecoder('utf-8');
  private pending = '';
  private scanFrom = 0;
  private lineStart = 0;

  push(chunk: Uint8Array): SseEvent[] {
    this.pending += this.decoder.decode(chunk, { stream: true });
    return this.drain();
  }

  /** Whatever is left when the stream ends, as one final (possibly unterminated) block. */
  end(): SseEvent[] {
    this.pending += this.decoder.decode();
    const events = this.drain(true);
    if (this.pending.length > 0) events.push(parseSseBlock(this.pending));
    this.pending = '';
    this.scanFrom = 0;
    this.lineStart = 0;
    return events;
  }

  private drain(atEnd = false): SseEvent[] {
    const events: SseEvent[] = [];
    const text = this.pending;
    let blockStart = 0;
    let i = this.scanFrom;
    let lineStart = this.lineStart;
    while (i < text.length) {
      const ch = text[i];
      if (ch !== '\n' && ch !== '\r') {
        i++;
        continue;
      }
      let terminatorEnd = i + 1;
      if (ch === '\r') {
        // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
        if (i + 1 === text.length && !atEnd) break;
        if (text[i + 1] === '\n') terminatorEnd = i + 2;
      }
      const lineWasEmpty = i === lineStart;
      i = terminatorEnd;
      lineStart = i;
      if (lineWasEmpty) {
        events.push(parseSseBlock(text.slice(blockStart, i)));
        blockStart = i;
      }
    }
    this.pending = text.slice(blockStart);
    this.scanFrom = i - blockStart;
    this.lineStart = lineStart - blockStart;
    return events;
  }
}

export function parseSseBlock(raw: string): SseEvent {
  const event: SseEvent = { raw };
  const data: string[] = [];
  for (const line of raw.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event.event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) event.data = data.join('\n');
  return event;
}
