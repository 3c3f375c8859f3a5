import { crc32 } from '../../src/infra/gateway/event-stream.js';

/** A header of an event-stream message as the tests build it: string (type 7) unless said otherwise. */
export type FrameHeader = string | { type: number; bytes: Uint8Array };

/**
 * One AWS event-stream message built by hand from the format's definition (prelude, headers,
 * payload, CRCs), so the reader is checked against the layout, not against itself. `corrupt`
 * changes one field after the CRCs are computed.
 */
export function frame(
  headers: Record<string, FrameHeader>,
  payload: Uint8Array | string,
  corrupt?: { preludeCrc?: boolean; messageCrc?: boolean; totalLength?: number; headersLength?: number },
): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, 'utf8');
      if (typeof value === 'string') {
        const text = Buffer.from(value, 'utf8');
        const length = Buffer.alloc(2);
        length.writeUInt16BE(text.length);
        return Buffer.concat([Buffer.from([nameBytes.length]), nameBytes, Buffer.from([7]), length, text]);
      }
      return Buffer.concat([Buffer.from([nameBytes.length]), nameBytes, Buffer.from([value.type]), Buffer.from(value.bytes)]);
    }),
  );
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const total = 12 + headerBytes.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(corrupt?.totalLength ?? total, 0);
  prelude.writeUInt32BE(corrupt?.headersLength ?? headerBytes.length, 4);
  prelude.writeUInt32BE((crc32(prelude.subarray(0, 8)) ^ (corrupt?.preludeCrc ? 1 : 0)) >>> 0, 8);
  const withoutCrc = Buffer.concat([prelude, headerBytes, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((crc32(withoutCrc) ^ (corrupt?.messageCrc ? 1 : 0)) >>> 0);
  return Buffer.concat([withoutCrc, crc]);
}

/** A Bedrock event (`:message-type: event`) of the given type with a JSON payload. */
export function bedrockEventFrame(eventType: string, payload: unknown): Buffer {
  return frame({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify(payload));
}

/** InvokeModelWithResponseStream's `chunk`: the model's own event, base64 in `bytes`. */
export function invokeChunkFrame(event: unknown): Buffer {
  return bedrockEventFrame('chunk', { bytes: Buffer.from(JSON.stringify(event), 'utf8').toString('base64') });
}
