import { APICallError } from 'ai';
import type { AgentResult } from '../../../core/types/index.js';

/** How the loop treats a failed model call. */
export type ModelFailure =
  { retry: true; status?: number; message: string; retryAfterMs?: number } | { retry: false; stop: Pick<AgentResult, 'stopReason' | 'error' | 'errorKind'> };

const CONTEXT_EXCEEDED =
  /context[_ ]length|context window|maximum context|prompt is too long|input is too long|too many (input )?tokens|exceeds the (maximum|model's) (number of )?tokens|reduce the length/i;

/**
 * 429, 5xx, 408/409, unreachable and malformed responses are worth retrying. The gateway's own
 * refusals carry `x-crucible-gateway-error`: a spent budget ends the attempt as `budget_exceeded`,
 * a replay miss or a missing key is the harness's failure, not the agent's.
 */
export function classifyModelError(error: unknown): ModelFailure {
  if (!APICallError.isInstance(error)) {
    return { retry: false, stop: { stopReason: 'error', error: `model call failed: ${messageOf(error)}` } };
  }
  const status = error.statusCode;
  const headers = error.responseHeaders ?? {};
  const gatewayError = headers['x-crucible-gateway-error'];
  const detail = oneLine(error.responseBody ? (bodyMessage(error.responseBody) ?? error.message) : error.message);
  if (gatewayError === 'budget_exceeded') return { retry: false, stop: { stopReason: 'budget_exceeded', error: detail } };
  if (gatewayError !== undefined && gatewayError !== 'upstream_unreachable') {
    return { retry: false, stop: { stopReason: 'error', errorKind: 'harness', error: detail } };
  }
  if (status !== undefined && status >= 400 && status < 500 && CONTEXT_EXCEEDED.test(`${error.message} ${error.responseBody ?? ''}`)) {
    return { retry: false, stop: { stopReason: 'context_exceeded', error: detail } };
  }
  // A 2xx that failed to parse is a broken response, as transient as a 5xx.
  if (error.isRetryable || (status !== undefined && status >= 200 && status < 300)) {
    return { retry: true, status, message: detail, retryAfterMs: retryAfterMs(headers) };
  }
  const credentials = status === 401 || status === 403;
  return {
    retry: false,
    stop: { stopReason: 'error', error: `model call failed (${status ?? 'no status'}): ${detail}`, ...(credentials ? { errorKind: 'harness' as const } : {}) },
  };
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Record<string, string>, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

export interface RetryPolicy {
  /** Retries after the first call. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** The provider's retry-after when it gives one, else exponential backoff; both capped. */
export function retryDelayMs(policy: RetryPolicy, retryIndex: number, retryAfter: number | undefined): number {
  const backoff = policy.baseDelayMs * 2 ** retryIndex;
  return Math.round(Math.min(retryAfter ?? backoff, policy.maxDelayMs));
}

function bodyMessage(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | unknown; message?: unknown };
    const nested = typeof json.error === 'object' && json.error !== null ? (json.error as { message?: unknown }).message : json.error;
    const message = nested ?? json.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

function messageOf(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error));
}

function oneLine(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}
