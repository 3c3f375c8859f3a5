import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import { bedrockEvent } from '../../src/infra/gateway/bedrock-stream.js';
import { crc32, EventStreamDecoder, EventStreamError, MAX_MESSAGE_BYTES } from '../../src/infra/gateway/event-stream.js';
import { bedrockEventFrame, frame, invokeChunkFrame } from './event-stream-frames.js';

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

function decodeAll(bytes: Buffer, cut: number[] = []): ReturnType<EventStreamDecoder['push']> {
  const decoder = new EventStreamDecoder();
  const out: ReturnType<EventStreamDecoder['push']> = [];
  let at = 0;
  for (const end of [...cut, bytes.length]) {
    out.push(...decoder.push(bytes.subarray(at, end)));
    at = end;
  }
  decoder.end();
  return out;
}

describe('AWS event-stream frame reader', () => {
  it('computes the IEEE CRC-32 (the check value of "123456789" is cbf43926)', () => {
    expect(crc32(Buffer.from('123456789')).toString(16)).toBe('cbf43926');
  });

  it("reads frames built by hand, and AWS's own codec reads the same frames the same way", () => {
    const one = bedrockEventFrame('messageStart', { role: 'assistant' });
    const two = frame({ ':message-type': 'event', ':event-type': 'metadata' }, '{"usage":{"inputTokens":5}}');
    const messages = decodeAll(Buffer.concat([one, two]));
    expect(messages.map((m) => [m.headers[':event-type'], text(m.payload)])).toEqual([
      ['messageStart', '{"role":"assistant"}'],
      ['metadata', '{"usage":{"inputTokens":5}}'],
    ]);
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const theirs = codec.decode(one);
    expect(theirs.headers[':event-type']).toEqual({ type: 'string', value: 'messageStart' });
    expect(text(theirs.body)).toBe('{"role":"assistant"}');
  });

  it("reads AWS's codec's frames with every header type, however the bytes are cut", () => {
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const bytes = Buffer.from(
      codec.encode({
        headers: {
          yes: { type: 'boolean', value: true },
          no: { type: 'boolean', value: false },
          b: { type: 'byte', value: -7 },
          s: { type: 'short', value: 3000 },
          i: { type: 'integer', value: -123456 },
          bin: { type: 'binary', value: new Uint8Array([1, 2, 3]) },
          str: { type: 'string', value: 'héllo' },
          when: { type: 'timestamp', value: new Date(1_760_000_000_000) },
          id: { type: 'uuid', value: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' },
        },
        body: fromUtf8('payload'),
      }),
    );
    const expected = {
      yes: true,
      no: false,
      b: -7,
      s: 3000,
      i: -123456,
      bin: new Uint8Array([1, 2, 3]),
      str: 'héllo',
      when: 1_760_000_000_000n,
      id: new Uint8Array(Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex')),
    };
    for (let cut = 1; cut < bytes.length; cut++) {
      const [message, ...rest] = decodeAll(bytes, [cut]);
      expect(rest).toEqual([]);
      expect(message?.headers).toEqual(expected);
      expect(text(message?.payload ?? new Uint8Array())).toBe('payload');
    }
  });

  it('refuses a prelude whose CRC does not match, before trusting its lengths', () => {
    expect(() => new EventStreamDecoder().push(frame({ a: 'b' }, 'x', { preludeCrc: true }))).toThrow(/prelude CRC mismatch/);
  });

  it('refuses a message whose CRC does not match (a flipped payload byte)', () => {
    const bytes = bedrockEventFrame('chunk', { bytes: 'AAAA' });
    bytes.writeUInt8((bytes.readUInt8(bytes.length - 6) ^ 0xff) & 0xff, bytes.length - 6);
    expect(() => new EventStreamDecoder().push(bytes)).toThrow(/message CRC mismatch/);
    expect(() => new EventStreamDecoder().push(frame({ a: 'b' }, 'x', { messageCrc: true }))).toThrow(/message CRC mismatch/);
  });

  it('says a stream that ends inside a frame is truncated', () => {
    const bytes = bedrockEventFrame('metadata', {});
    const decoder = new EventStreamDecoder();
    expect(decoder.push(bytes.subarray(0, bytes.length - 1))).toEqual([]);
    expect(() => decoder.end()).toThrow(/ended inside a message \(\d+ bytes/);
  });

  it('refuses lengths that are too small, too large or do not fit, without waiting for bytes that never come', () => {
    const tooLarge = frame({}, 'x', { totalLength: MAX_MESSAGE_BYTES + 1 });
    expect(() => new EventStreamDecoder().push(tooLarge.subarray(0, 12))).toThrow(/message length 16777217 is outside 16\.\.16777216/);
    expect(() => new EventStreamDecoder().push(frame({}, '', { totalLength: 15 }))).toThrow(/outside 16\.\./);
    expect(() => new EventStreamDecoder().push(frame({ a: 'b' }, 'x', { headersLength: 1000 }))).toThrow(
      /headers length 1000 does not fit a message of 23 bytes/,
    );
  });

  it('refuses headers that run past their section, have an empty name or an unknown type', () => {
    const past = frame({ s: { type: 7, bytes: new Uint8Array([0, 50, 65]) } }, '');
    expect(() => new EventStreamDecoder().push(past)).toThrow(/runs past the headers section/);
    expect(() => new EventStreamDecoder().push(frame({ '': 'v' }, ''))).toThrow(/empty name/);
    expect(() => new EventStreamDecoder().push(frame({ odd: { type: 10, bytes: new Uint8Array() } }, ''))).toThrow(/unknown value type 10/);
  });

  it('reads nothing after a bad frame: later offsets cannot be trusted', () => {
    const decoder = new EventStreamDecoder();
    expect(() => decoder.push(frame({ a: 'b' }, 'x', { messageCrc: true }))).toThrow(EventStreamError);
    expect(decoder.push(bedrockEventFrame('metadata', {}))).toEqual([]);
    expect(() => decoder.end()).not.toThrow();
  });
});

describe("Bedrock's event-stream messages as the gateway's readers see them", () => {
  it("turns an invoke chunk into the model's own event, named by its type", () => {
    const [message] = decodeAll(invokeChunkFrame({ type: 'message_delta', usage: { output_tokens: 9 } }));
    expect(bedrockEvent(message as never)).toEqual({ raw: '', event: 'message_delta', data: '{"type":"message_delta","usage":{"output_tokens":9}}' });
  });

  it('turns a converse-stream event into its payload named by :event-type, and an exception into an error event', () => {
    const [event, exception] = decodeAll(
      Buffer.concat([
        bedrockEventFrame('metadata', { usage: { inputTokens: 3 } }),
        frame({ ':message-type': 'exception', ':exception-type': 'throttlingException' }, '{"message":"Too many requests"}'),
      ]),
    );
    expect(bedrockEvent(event as never)).toEqual({ raw: '', event: 'metadata', data: '{"usage":{"inputTokens":3}}' });
    expect(bedrockEvent(exception as never)).toEqual({
      raw: '',
      event: 'error',
      data: JSON.stringify({ error: { type: 'throttlingException', message: 'Too many requests' } }),
    });
  });
});
