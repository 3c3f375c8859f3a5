import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { bedrockEvent } from './bedrock-stream.js';
import { encodeBody, type RecordedResponse } from './cassette.js';
import { EventStreamDecoder } from './event-stream.js';
import type { ReplySource } from './forward.js';
import { clientResponseHeaders, recordableHeaders } from './headers.js';
import { SseSplitter, type SseEvent } from './sse.js';
import { StreamEnd } from './stream-end.js';
import { turnReader, type TurnContent, type TurnReader } from './turn-readers.js';
import { usageReader, type Api, type UsageReader, type UsageReading } from './usage-readers.js';

export interface DeliveryOptions {
  api: Api;
  /** The gateway turned on `stream_options.include_usage`; hide the usage chunk the client never asked for. */
  hideUsageChunk: boolean;
}

export interface Delivery {
  status: number;
  reading: UsageReading;
  /** What the model said and asked for; undefined for unmetered APIs and error statuses. */
  turn?: TurnContent;
  /** The response as the upstream sent it, for the cassette. */
  recorded: RecordedResponse;
  /** False when the client left or the upstream broke off mid-body. */
  complete: boolean;
  /** Why it is not complete, when it is not: the client left, or the upstream's body broke off. */
  brokenBy?: 'client' | 'upstream';
  /** A 2xx event stream that ended without its final event, or carried an error event (stream-end.ts). */
  stream?: { stream: 'cut' | 'error'; detail: string };
  /** The transport error that broke the upstream's body, when it broke. */
  upstreamError?: string;
  /** With `brokenBy: 'client'` on an event stream: how long the upstream had been silent when the client left. */
  silentMs?: number;
}

class ClientGone extends Error {}

/**
 * Passes a response to the client as it arrives, one chunk (or, for SSE, one whole event) at a
 * time, while reading usage from it and keeping a copy for the cassette.
 */
export async function deliver(source: ReplySource, res: ServerResponse, options: DeliveryOptions): Promise<Delivery> {
  const headers = clientResponseHeaders(source.headers);
  res.writeHead(source.status, headers);
  const metered = options.api !== 'other' && source.status >= 200 && source.status < 300 ? options.api : undefined;
  const reader: UsageReader | undefined = metered && usageReader(metered);
  const turns: TurnReader | undefined = metered && turnReader(metered);
  const isSse = String(headers['content-type'] ?? '').includes('text/event-stream');
  // Bedrock's binary event stream is passed and recorded as bytes, and read frame by frame.
  const frames = metered && String(headers['content-type'] ?? '').includes('application/vnd.amazon.eventstream') ? new BedrockFrames() : undefined;
  const events: string[] = [];
  const chunks: Buffer[] = [];
  const streamEnd = metered && (isSse || frames) ? new StreamEnd(metered) : undefined;
  let complete = true;
  let clientLeft = false;
  let upstreamError: string | undefined;
  let lastByteAt = performance.now();
  let silentMs: number | undefined;
  // The client may leave while we wait on the upstream, not only while writing to it.
  const onClientClose = (): void => {
    if (res.writableFinished) return;
    complete = false;
    clientLeft = true;
    silentMs ??= performance.now() - lastByteAt;
    source.abort();
  };
  res.on('close', onClientClose);

  const observe = (event: SseEvent): void => {
    reader?.event(event);
    turns?.event(event);
    streamEnd?.event(event);
  };
  const passEvent = async (event: SseEvent): Promise<void> => {
    observe(event);
    events.push(event.raw);
    if (!(options.hideUsageChunk && isUsageOnlyChunk(event))) await write(res, event.raw);
  };

  try {
    const splitter = isSse ? new SseSplitter() : undefined;
    for await (const chunk of source.body) {
      lastByteAt = performance.now();
      if (splitter) {
        for (const event of splitter.push(chunk)) await passEvent(event);
      } else {
        chunks.push(chunk);
        frames?.push(chunk).forEach(observe);
        await write(res, chunk);
      }
    }
    if (splitter) for (const event of splitter.end()) await passEvent(event);
    frames?.end().forEach(observe);
    res.end();
  } catch (error) {
    complete = false;
    if (error instanceof ClientGone) clientLeft = true;
    else upstreamError = (error as Error).message;
    source.abort();
    // A proxy cannot fix a broken body; cutting the connection tells the client it is incomplete.
    if (!(error instanceof ClientGone)) res.destroy();
  } finally {
    res.off('close', onClientClose);
  }

  const body = Buffer.concat(chunks);
  if (!isSse && !frames) {
    const text = body.toString('utf8');
    reader?.body(text);
    turns?.body(text);
  }
  const recorded: RecordedResponse = {
    status: source.status,
    headers: recordableHeaders(headers),
    ...(isSse ? { events } : encodeBody(body)),
  };
  const turn = turns?.result();
  const brokenBy = complete ? undefined : clientLeft ? 'client' : 'upstream';
  const stream = complete ? streamEnd?.result() : undefined;
  return {
    status: source.status,
    reading: reader?.result() ?? {},
    ...(turn ? { turn } : {}),
    recorded,
    complete,
    ...(brokenBy ? { brokenBy } : {}),
    ...(stream ? { stream } : {}),
    ...(upstreamError !== undefined && !clientLeft ? { upstreamError } : {}),
    ...(clientLeft && isSse && silentMs !== undefined ? { silentMs: Math.round(silentMs) } : {}),
  };
}

/** Bedrock event-stream frames as reader events; a bad or cut frame is one `error` event, after which nothing is read. */
class BedrockFrames {
  private readonly decoder = new EventStreamDecoder();

  push(chunk: Uint8Array): SseEvent[] {
    return this.read(() => this.decoder.push(chunk).map(bedrockEvent));
  }

  end(): SseEvent[] {
    return this.read(() => {
      this.decoder.end();
      return [];
    });
  }

  private read(step: () => Array<SseEvent | undefined>): SseEvent[] {
    try {
      return step().filter((event): event is SseEvent => event !== undefined);
    } catch (error) {
      return [{ raw: '', event: 'error', data: JSON.stringify({ error: { type: 'event_stream', message: (error as Error).message } }) }];
    }
  }
}

/** The extra final chunk include_usage adds: no choices, only usage. */
function isUsageOnlyChunk(event: SseEvent): boolean {
  if (event.data === undefined || event.data === '[DONE]') return false;
  try {
    const chunk: unknown = JSON.parse(event.data);
    if (typeof chunk !== 'object' || chunk === null) return false;
    const { choices, usage } = chunk as { choices?: unknown; usage?: unknown };
    return Array.isArray(choices) && choices.length === 0 && typeof usage === 'object' && usage !== null;
  } catch {
    return false;
  }
}

function write(res: ServerResponse, data: string | Buffer): Promise<void> {
  if (res.destroyed) return Promise.reject(new ClientGone());
  if (res.write(data)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      res.off('close', onClose);
      resolve();
    };
    const onClose = (): void => {
      res.off('drain', onDrain);
      reject(new ClientGone());
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
