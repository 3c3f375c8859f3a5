/**
 * AWS event-stream framing (`application/vnd.amazon.eventstream`), the binary stream Bedrock
 * Runtime answers InvokeModelWithResponseStream and ConverseStream with. One message is:
 *
 *   total length (u32 BE) | headers length (u32 BE) | prelude CRC32 (of the 8 bytes before it)
 *   headers (name length u8, name, value type u8, value) | payload | message CRC32 (of all before it)
 *
 * The reader only observes: the bytes a client gets are the upstream's, unchanged; a frame that
 * fails a check stops the reading (nothing after it is trusted) and says why.
 */

export type HeaderValue = string | number | bigint | boolean | Uint8Array;

export interface EventStreamMessage {
  headers: Record<string, HeaderValue>;
  payload: Uint8Array;
}

const PRELUDE_BYTES = 12;
const CRC_BYTES = 4;
/** Prelude and message CRC with no headers and no payload. */
const MIN_MESSAGE_BYTES = PRELUDE_BYTES + CRC_BYTES;
/** AWS's own limits for one message and for its headers; a longer length is a broken or hostile frame, not one to wait for. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
export const MAX_HEADERS_BYTES = 128 * 1024;

export class EventStreamError extends Error {}

/**
 * Cuts a byte stream into whole messages, however the chunks fall. After an error it returns
 * nothing more: the offsets of whatever follows a bad frame mean nothing.
 */
export class EventStreamDecoder {
  private pending: Uint8Array = new Uint8Array(0);
  private failed: string | undefined;

  /** The messages completed by this chunk; throws EventStreamError on the first bad frame. */
  push(chunk: Uint8Array): EventStreamMessage[] {
    if (this.failed !== undefined) return [];
    this.pending = concat(this.pending, chunk);
    const messages: EventStreamMessage[] = [];
    try {
      for (;;) {
        const message = this.next();
        if (!message) break;
        messages.push(message);
      }
    } catch (error) {
      this.failed = (error as Error).message;
      this.pending = new Uint8Array(0);
      throw error;
    }
    return messages;
  }

  /** Throws when the stream ended inside a message. */
  end(): void {
    if (this.failed !== undefined || this.pending.length === 0) return;
    const have = this.pending.length;
    this.pending = new Uint8Array(0);
    this.failed = 'truncated';
    throw new EventStreamError(`the event stream ended inside a message (${have} bytes of an unfinished frame)`);
  }

  private next(): EventStreamMessage | undefined {
    const buf = this.pending;
    if (buf.length < PRELUDE_BYTES) return undefined;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const total = view.getUint32(0);
    const headersLength = view.getUint32(4);
    if (crc32(buf.subarray(0, 8)) !== view.getUint32(8)) throw new EventStreamError('event-stream prelude CRC mismatch');
    if (total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) {
      throw new EventStreamError(`event-stream message length ${total} is outside ${MIN_MESSAGE_BYTES}..${MAX_MESSAGE_BYTES}`);
    }
    if (headersLength > MAX_HEADERS_BYTES || headersLength > total - MIN_MESSAGE_BYTES) {
      throw new EventStreamError(`event-stream headers length ${headersLength} does not fit a message of ${total} bytes`);
    }
    if (buf.length < total) return undefined;
    if (crc32(buf.subarray(0, total - CRC_BYTES)) !== view.getUint32(total - CRC_BYTES)) throw new EventStreamError('event-stream message CRC mismatch');
    const headers = readHeaders(buf.subarray(PRELUDE_BYTES, PRELUDE_BYTES + headersLength));
    const payload = buf.slice(PRELUDE_BYTES + headersLength, total - CRC_BYTES);
    this.pending = buf.subarray(total);
    return { headers, payload };
  }
}

function readHeaders(bytes: Uint8Array): Record<string, HeaderValue> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headers: Record<string, HeaderValue> = {};
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let at = 0;
  const need = (n: number): void => {
    if (at + n > bytes.length) throw new EventStreamError('event-stream header runs past the headers section');
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = view.getUint8(at++);
    if (nameLength === 0) throw new EventStreamError('event-stream header with an empty name');
    need(nameLength + 1);
    const name = decodeText(decoder, bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = view.getUint8(at++);
    let value: HeaderValue;
    switch (type) {
      case 0:
        value = true;
        break;
      case 1:
        value = false;
        break;
      case 2:
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
      case 8: // a timestamp: milliseconds since the epoch, as a signed 64-bit integer
        need(8);
        value = view.getBigInt64(at);
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(at);
        at += 2;
        need(length);
        const raw = bytes.slice(at, at + length);
        value = type === 7 ? decodeText(decoder, raw) : raw;
        at += length;
        break;
      }
      case 9:
        need(16);
        value = bytes.slice(at, at + 16);
        at += 16;
        break;
      default:
        throw new EventStreamError(`event-stream header ${name} has unknown value type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}

function decodeText(decoder: { decode(bytes: Uint8Array): string }, bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new EventStreamError('event-stream header text is not UTF-8');
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

const CRC_TABLE = ((): Uint32Array => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib and the event-stream format use it). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
