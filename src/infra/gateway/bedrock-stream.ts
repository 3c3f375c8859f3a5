import type { EventStreamMessage } from './event-stream.js';
import type { SseEvent } from './sse.js';

/**
 * One Bedrock event-stream message as the event the gateway's readers already understand, so a
 * Bedrock stream is metered, read for its turn and checked for its end by the same code as SSE:
 * - InvokeModelWithResponseStream's `chunk` carries `{"bytes": base64}`, the bytes being the model's
 *   own event (for Claude, Anthropic's Messages stream event, whose `message_stop` adds
 *   `amazon-bedrock-invocationMetrics`): the decoded event, named by its `type`;
 * - ConverseStream's events (`messageStart`, `contentBlockDelta`, `metadata`, …): the payload, named
 *   by `:event-type`;
 * - an `exception` or `error` message: an `error` event, which the stream-end check reports.
 * `raw` is empty: what the client gets and the cassette keeps are the upstream's bytes.
 */
export function bedrockEvent(message: EventStreamMessage): SseEvent | undefined {
  const headers = message.headers;
  const kind = headers[':message-type'];
  const text = new TextDecoder().decode(message.payload);
  if (kind === 'exception' || kind === 'error') {
    const type = kind === 'exception' ? headers[':exception-type'] : headers[':error-code'];
    const detail = kind === 'error' ? headers[':error-message'] : messageOf(text);
    const error = { type: typeof type === 'string' ? type : kind, message: typeof detail === 'string' ? detail : text.slice(0, 200) };
    return { raw: '', event: 'error', data: JSON.stringify({ error }) };
  }
  const eventType = headers[':event-type'];
  if (kind !== 'event' || typeof eventType !== 'string') return undefined;
  if (eventType !== 'chunk') return { raw: '', event: eventType, data: text };
  const bytes = parse(text)?.['bytes'];
  if (typeof bytes !== 'string') return undefined;
  const inner = Buffer.from(bytes, 'base64').toString('utf8');
  const type = parse(inner)?.['type'];
  return { raw: '', ...(typeof type === 'string' ? { event: type } : {}), data: inner };
}

function messageOf(text: string): string | undefined {
  const value = parse(text);
  const message = value?.['message'] ?? value?.['Message'];
  return typeof message === 'string' ? message : undefined;
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
