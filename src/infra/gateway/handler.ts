import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { canonicalRequest, requestHash } from './canonical.js';
import { recordedChunks, type CassetteWriter, type RecordedResponse } from './cassette.js';
import { deliver } from './deliver.js';
import { gatewayError, type GatewayReply } from './errors.js';
import { forwardToUpstream, recordedSource, UpstreamStall, type ReplySource } from './forward.js';
import { upstreamRequestHeaders } from './headers.js';
import type { SessionMeter } from './meter.js';
import { outcomeOf, type ProviderWatch } from './provider-watch.js';
import type { ReplayBook } from './replay.js';
import type { RunPool, Spend } from './run-pool.js';
import { allowedRoute } from './allowed-routes.js';
import { canonicalRequestPath, forwardedUrl } from './request-path.js';
import { newlyAnswered, readRequest } from './request-readers.js';
import { parseSessionRoute } from './routes.js';
import type { GatewayMode, ModelTurn, UpstreamKind } from './types.js';
import type { Api } from './usage-readers.js';
import { upstreamAuth, upstreamUrl, withoutKeyParam, type AuthResult, type Upstream } from './upstreams.js';
import type { Volatility } from './volatile.js';

/** What the handler needs of an open session. */
export interface SessionState {
  /** The attempt the session serves: the run pool counts its billing per attempt. */
  attemptId: string;
  meter: SessionMeter;
  recorder?: CassetteWriter;
  replay?: ReplayBook;
  volatility: Volatility;
  /** Which model requests failed at the provider (provider-watch.ts). */
  provider: ProviderWatch;
  /** The attempt's model, when the session is pinned to one. */
  pin?: { model: string; others: 'refuse' | 'serve' };
  /** Every metered exchange's turn, in arrival order. */
  turns: ModelTurn[];
  nextSeq: number;
}

export interface HandlerContext {
  mode: GatewayMode;
  upstreams: ReadonlyMap<string, Upstream>;
  env: Readonly<Record<string, string | undefined>>;
  maxRequestBytes: number;
  /** Longest silence of an upstream before the gateway cuts it off as stalled; undefined for none. */
  stallMs?: number;
  openSessionByToken(token: string): SessionState | undefined;
  /** The run's caps over all sessions, when the run has any. */
  runPool?: RunPool;
}

export function createRequestHandler(ctx: HandlerContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(ctx, req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else send(res, gatewayError('openai', 'gateway_failure', (error as Error).message));
    });
  };
}

async function handle(ctx: HandlerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '';
  // The path is read once, here; what is routed and metered below is what is forwarded.
  const path = canonicalRequestPath(rawUrl);
  if (!path.ok) {
    const named = namedSession(ctx, rawUrl);
    named?.session.meter.recordRefusal(path.reason, path.message);
    send(res, gatewayError(named?.kind ?? 'openai', 'bad_path', path.message));
    return;
  }
  const route = parseSessionRoute(path.pathname + path.query);
  const upstream = route && ctx.upstreams.get(route.upstream);
  if (!route || !upstream) {
    send(res, gatewayError('openai', 'not_found', 'use /s/<session token>/<upstream>/... with a configured upstream'));
    return;
  }
  const session = ctx.openSessionByToken(route.token);
  if (!session) {
    send(res, gatewayError(upstream.kind, 'unknown_session', 'unknown or closed session'));
    return;
  }
  const clientPath = withoutKeyParam(upstream.kind, route.path);
  const method = req.method ?? 'GET';
  const allowed = allowedRoute(upstream.kind, method, clientPath);
  const target = allowed && upstreamUrl(upstream, clientPath);
  const url = target === undefined ? undefined : forwardedUrl(upstream.baseUrl, target.slice(upstream.baseUrl.length));
  if (!allowed || !url) {
    const message = `${method} ${clientPath.split('?')[0] ?? ''} is not a route the gateway meters, so it is not forwarded (model calls, model listings and token counts are)`;
    session.meter.recordRefusal('route_not_allowed', message);
    send(res, gatewayError(upstream.kind, 'route_not_allowed', message));
    return;
  }
  const body = await readBody(req, ctx.maxRequestBytes);
  if (body === undefined) {
    send(res, gatewayError(upstream.kind, 'request_too_large', `request body over ${ctx.maxRequestBytes} bytes`));
    return;
  }

  const { api } = allowed;
  const json = parseJsonObject(body);
  const canonical = session.volatility.normalise(canonicalRequest({ upstream: upstream.name, method, pathWithQuery: clientPath, api, body, json }));
  const hash = requestHash(canonical);
  const requestModel = allowed.pathModel ?? (typeof json?.['model'] === 'string' ? json['model'] : undefined);
  // Metering needs the usage chunk; clients that did not ask for it do not get to see it.
  const hideUsageChunk = api === 'chat' && json?.['stream'] === true && !asksForStreamUsage(json);

  const pin = session.pin;
  if (pin && pin.others !== 'serve' && (api !== 'other' || allowed.side === 'count_tokens') && requestModel !== pin.model) {
    const message = `this attempt's model is ${pin.model}; a request for ${requestModel === undefined ? 'no model' : `"${requestModel}"`} is not served`;
    session.meter.recordRefusal('model_not_allowed', message);
    send(res, gatewayError(upstream.kind, 'model_not_allowed', message));
    return;
  }

  const auth: AuthResult = ctx.mode === 'replay' ? { ok: true, headers: {} } : await upstreamAuth(upstream, ctx.env);
  if (!auth.ok) {
    send(res, gatewayError(upstream.kind, 'missing_api_key', auth.message));
    return;
  }
  // Every forwarded request is admitted, side requests too: the turn limit holds whatever the path.
  const verdict = session.meter.admit({
    api,
    ...(requestModel !== undefined ? { model: requestModel } : {}),
    ...(json ? { json } : {}),
    bodyBytes: body.length,
  });
  if (!verdict.allowed) {
    send(res, gatewayError(upstream.kind, verdict.reason === 'budget' ? 'budget_exceeded' : 'model_not_priced', verdict.message));
    return;
  }
  const { ticket } = verdict;
  // The run's caps hold every model request of every attempt: it waits while others in flight fill them.
  const pooled = ctx.runPool && api !== 'other' ? await ctx.runPool.admit(ticket, session.attemptId) : undefined;
  if (pooled && !pooled.ok) {
    session.meter.release(ticket);
    session.meter.refuseForRun(pooled.limit, pooled.message);
    send(res, gatewayError(upstream.kind, 'budget_exceeded', pooled.message));
    return;
  }
  let billed: Spend | undefined;

  // However the exchange ends (a client gone, a broken stream), its hold on the budget ends with it.
  try {
    const seq = session.nextSeq++;
    const at = new Date().toISOString();
    const started = performance.now();
    if (api !== 'other') session.provider.requestArrived(started);
    let unreachable: string | undefined;
    let source: ReplySource;
    let recordedLatencyMs: number | undefined;
    if (session.replay) {
      const match = session.replay.take(hash, canonical);
      if (!match.hit) {
        session.meter.release(ticket);
        session.meter.recordMiss({ method, path: clientPath, ...(requestModel ? { model: requestModel } : {}), diff: match.diff });
        send(res, gatewayError(upstream.kind, 'replay_miss', match.diff));
        return;
      }
      countForwarded(session.meter, api);
      if (match.loose) session.meter.recordLooseMatch();
      // The recording says `as` where the upstream wrote a volatile value; this agent gets its own.
      const response = session.volatility.fromRecording(match.exchange.response);
      source = recordedSource(response.status, response.headers, recordedChunks(response));
      recordedLatencyMs = match.exchange.latencyMs;
    } else {
      countForwarded(session.meter, api);
      const outgoing = hideUsageChunk && json ? Buffer.from(JSON.stringify(withStreamUsage(json))) : body;
      const headers = upstreamRequestHeaders(req.headers, auth.headers);
      // A signature covers the URL, method and body exactly as they are forwarded.
      const signed = auth.sign ? { ...headers, ...auth.sign({ method, url, headers, body: outgoing }) } : headers;
      source = await forwardToUpstream(url.href, method, signed, outgoing, ctx.stallMs).catch((error: unknown) => {
        unreachable = error instanceof UpstreamStall ? 'stalled' : (error as Error).message;
        const reply = gatewayError(upstream.kind, 'upstream_unreachable', `${upstream.name} unreachable: ${(error as Error).message}`);
        return recordedSource(reply.status, reply.headers, [Buffer.from(reply.body)]);
      });
    }

    const delivery = await deliver(source, res, { api, hideUsageChunk });
    const latencyMs = recordedLatencyMs ?? Math.round(performance.now() - started);
    if (api === 'other') session.meter.settle(ticket);
    else {
      const outcome = outcomeOf(delivery, source, unreachable, ctx.stallMs);
      const failure = session.provider.answerEnded(seq, upstream.name, outcome, performance.now());
      const unfinished = outcome.clientGone === true || outcome.stalled === true || outcome.brokeOff === true || outcome.stream === 'cut';
      billed = session.meter.record(ticket, { status: delivery.status, requestModel, reading: delivery.reading, latencyMs });
      const model = delivery.reading.model ?? requestModel;
      const sent = readRequest(api, json);
      const toolResults = newlyAnswered(session.turns, sent.toolResults);
      // One copy of a system prompt every request repeats: turns are kept for the whole run.
      const previous = session.turns.at(-1)?.system;
      const system = sent.system !== undefined && sent.system === previous ? previous : sent.system;
      session.turns.push({
        seq,
        api,
        at,
        status: delivery.status,
        ...(model !== undefined ? { model } : {}),
        ...(requestModel !== undefined ? { requestedModel: requestModel } : {}),
        ...delivery.turn,
        toolCalls: delivery.turn?.toolCalls ?? [],
        ...(system !== undefined ? { system } : {}),
        ...(toolResults.length > 0 ? { toolResults } : {}),
        ...(delivery.reading.usage ? { usage: delivery.reading.usage } : {}),
        latencyMs,
        ...(failure ? { failure } : {}),
        ...(unfinished ? { unfinished: true } : {}),
      });
    }
    const recorded: RecordedResponse | undefined = session.recorder && session.volatility.toRecording(delivery.recorded, api);
    session.recorder?.append({
      type: 'exchange',
      seq,
      api,
      request: { hash, canonical },
      response: recorded ?? delivery.recorded,
      latencyMs,
      ...(delivery.reading.model ? { model: delivery.reading.model } : {}),
      ...(delivery.reading.usage ? { usage: delivery.reading.usage } : {}),
    });
  } finally {
    session.meter.settle(ticket);
    if (pooled?.ok) await ctx.runPool?.settle(pooled.hold, billed);
  }
}

function countForwarded(meter: SessionMeter, api: Api): void {
  if (api === 'other') meter.countSideRequest();
  else meter.countRequest();
}

/** The session a refused path names, if any, so that its refusal is counted where it belongs. */
function namedSession(ctx: HandlerContext, rawUrl: string): { session: SessionState; kind: UpstreamKind } | undefined {
  const match = /^\/s\/([A-Za-z0-9_-]+)\/([a-z0-9][a-z0-9_-]*)(?=[/?]|$)/.exec(rawUrl);
  const session = match ? ctx.openSessionByToken(match[1] as string) : undefined;
  if (!match || !session) return undefined;
  return { session, kind: ctx.upstreams.get(match[2] as string)?.kind ?? 'openai' };
}

function asksForStreamUsage(json: Record<string, unknown>): boolean {
  const options = json['stream_options'];
  return typeof options === 'object' && options !== null && (options as Record<string, unknown>)['include_usage'] === true;
}

function withStreamUsage(json: Record<string, unknown>): Record<string, unknown> {
  const options = json['stream_options'];
  const base = typeof options === 'object' && options !== null ? options : {};
  return { ...json, stream_options: { ...base, include_usage: true } };
}

function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Undefined when the body is over the limit. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, reply: GatewayReply): void {
  res.writeHead(reply.status, reply.headers);
  res.end(reply.body);
}
