import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { HeaderMap } from './headers.js';

/** A response on its way back: from an upstream, or from a cassette. */
export interface ReplySource {
  status: number;
  headers: HeaderMap;
  body: AsyncIterable<Buffer>;
  /** Stops the upstream when the client goes away. */
  abort(): void;
  /** True once the upstream went silent past the stall limit and was cut off. */
  stalled?(): boolean;
}

/** The upstream sent nothing (no headers, or no further bytes) for the stall limit. */
export class UpstreamStall extends Error {}

/**
 * `stallMs` bounds the upstream's silence, before its headers and between bytes of its body (the
 * socket's idle time): a provider that never answers or stops mid-stream is cut off, and says so.
 */
export function forwardToUpstream(url: string, method: string, headers: OutgoingHttpHeaders, body: Buffer, stallMs?: number): Promise<ReplySource> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let stalled = false;
    let finished = false;
    const outgoing = send(target, { method, headers: body.length > 0 ? { ...headers, 'content-length': String(body.length) } : headers }, (response) => {
      response.once('end', () => (finished = true));
      resolve({
        status: response.statusCode ?? 502,
        headers: definedHeaders(response),
        body: decoded(response),
        abort: () => outgoing.destroy(),
        stalled: () => stalled,
      });
    });
    if (stallMs !== undefined && stallMs > 0) {
      outgoing.setTimeout(stallMs, () => {
        // The idle timer is the socket's; a finished exchange on a kept-alive socket is left alone.
        if (finished) return;
        stalled = true;
        outgoing.destroy(new UpstreamStall(`no bytes from the provider for ${stallMs} ms`));
      });
    }
    outgoing.on('error', reject);
    outgoing.end(body.length > 0 ? body : undefined);
  });
}

function definedHeaders(response: IncomingMessage): HeaderMap {
  const headers: HeaderMap = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = value;
  return headers;
}

/** We ask for identity encoding; this covers upstreams that compress anyway. */
function decoded(response: IncomingMessage): Readable {
  const decompressor = decompressorFor(response.headers['content-encoding']);
  if (!decompressor) return response;
  // pipeline, not pipe, so a broken upstream surfaces as an error on the stream we read.
  return pipeline(response, decompressor, () => undefined);
}

function decompressorFor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

export function recordedSource(status: number, headers: HeaderMap, chunks: Buffer[]): ReplySource {
  return {
    status,
    headers,
    body: (async function* () {
      yield* chunks;
    })(),
    abort: () => undefined,
  };
}
