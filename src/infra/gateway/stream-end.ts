import type { SseEvent } from './sse.js';
import type { MeteredApi } from './usage-readers.js';

/**
 * Whether a 2xx event stream reached the end its API promises, so a stream the provider closed
 * early (cleanly, with no transport error) is told from one that finished:
 * - chat: `data: [DONE]`, or a chunk with a `finish_reason` (servers that never send [DONE]);
 * - responses: `response.completed` or `response.incomplete` (`response.failed` is an error);
 * - messages: `message_stop`;
 * - gemini: a candidate with a `finishReason`;
 * - converse (Bedrock's converse-stream, read from its event-stream frames): `metadata`.
 * An `error` event (Anthropic's overloaded_error mid-stream), or a chunk that is an error object,
 * is the provider failing inside a 2xx.
 */
export class StreamEnd {
  private ended = false;
  private error: string | undefined;

  constructor(private readonly api: MeteredApi) {}

  event(event: SseEvent): void {
    if (event.data === undefined) return;
    if (event.data === '[DONE]') {
      this.ended = true;
      return;
    }
    const json = parse(event.data);
    if (
      event.event === 'error' ||
      json?.['type'] === 'error' ||
      (json !== undefined && 'error' in json && json['error'] !== null && this.api !== 'responses')
    ) {
      this.error ??= errorText(json) ?? event.data.slice(0, 200);
      return;
    }
    if (json === undefined) return;
    switch (this.api) {
      case 'chat':
        if (list(json['choices']).some((c) => isObject(c) && typeof c['finish_reason'] === 'string')) this.ended = true;
        return;
      case 'responses': {
        const type = json['type'];
        if (type === 'response.completed' || type === 'response.incomplete') this.ended = true;
        else if (type === 'response.failed') this.error ??= errorText(isObject(json['response']) ? json['response'] : undefined) ?? 'response.failed';
        return;
      }
      case 'messages':
        if (json['type'] === 'message_stop') this.ended = true;
        return;
      case 'gemini':
        if (list(json['candidates']).some((c) => isObject(c) && typeof c['finishReason'] === 'string')) this.ended = true;
        return;
      case 'converse':
        // converse-stream ends with messageStop, then the metadata event that carries the usage.
        if (event.event === 'metadata') this.ended = true;
        return;
    }
  }

  /** `cut` when the stream stopped before its end, `error` when it carried an error; undefined when it finished. */
  result(): { stream: 'cut' | 'error'; detail: string } | undefined {
    if (this.error !== undefined) return { stream: 'error', detail: `error event in the stream: ${this.error}` };
    if (!this.ended) return { stream: 'cut', detail: 'the event stream ended before its final event' };
    return undefined;
  }
}

type Json = Record<string, unknown>;

function parse(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function errorText(json: Json | undefined): string | undefined {
  const error = json?.['error'];
  if (typeof error === 'string') return error;
  if (isObject(error)) {
    const message = error['message'];
    const type = error['type'];
    return [typeof type === 'string' ? type : undefined, typeof message === 'string' ? message : undefined].filter(Boolean).join(': ') || undefined;
  }
  return undefined;
}
