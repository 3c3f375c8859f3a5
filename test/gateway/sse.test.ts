import { describe, expect, it } from 'vitest';
import { SseSplitter, type SseEvent } from '../../src/infra/gateway/sse.js';

function splitInto(chunks: Uint8Array[]): SseEvent[] {
  const splitter = new SseSplitter();
  return [...chunks.flatMap((c) => splitter.push(c)), ...splitter.end()];
}

function everyByte(text: string): Uint8Array[] {
  return [...Buffer.from(text, 'utf8')].map((b) => Uint8Array.of(b));
}

const STREAM =
  'event: message_start\ndata: {"type":"message_start","text":"naïve “quotes” ✓"}\n\n' +
  ': keep-alive comment\n\n' +
  'event: content_block_delta\r\ndata: {"a":1}\r\ndata: {"b":2}\r\n\r\n' +
  'data: [DONE]\r\r' +
  'data: trailing without blank line';

describe('SseSplitter', () => {
  it('finds the same events whether bytes arrive at once or one at a time, mid-character included', () => {
    const whole = splitInto([Buffer.from(STREAM, 'utf8')]);
    const bytewise = splitInto(everyByte(STREAM));
    expect(bytewise).toEqual(whole);
    expect(whole.map((e) => e.raw).join('')).toBe(STREAM);
  });

  it('parses event names and joins multi-line data', () => {
    const events = splitInto([Buffer.from(STREAM, 'utf8')]);
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ['message_start', '{"type":"message_start","text":"naïve “quotes” ✓"}'],
      [undefined, undefined],
      ['content_block_delta', '{"a":1}\n{"b":2}'],
      [undefined, '[DONE]'],
      [undefined, 'trailing without blank line'],
    ]);
  });

  it('waits when a chunk ends on a CR that may be half of CRLF', () => {
    const splitter = new SseSplitter();
    expect(splitter.push(Buffer.from('data: x\r\n\r'))).toEqual([]);
    expect(splitter.push(Buffer.from('\ndata: y\n\n')).map((e) => e.raw)).toEqual(['data: x\r\n\r\n', 'data: y\n\n']);
  });
});
