import type { Pricing } from './pricing.js';
import type { Api } from './usage-readers.js';

/**
 * What one request may cost at most, held against the budget while it is in flight so that
 * concurrent requests cannot all slip under a limit (issue 28). Settled on the answer.
 *
 * - Input: the request body's size in bytes, plus PROVIDER_PROMPT_OVERHEAD. A token of the
 *   providers' tokenizers is at least one byte of the text it encodes, and JSON only adds bytes, so
 *   the body bounds the prompt; the overhead covers what a provider adds itself (Anthropic's
 *   tool-use system prompt is a few hundred tokens). Priced at the dearest input rate the model
 *   has (a cache write costs more than plain input).
 * - Output: the request's own limit (`max_completion_tokens`, `max_tokens`, `max_output_tokens`,
 *   `generationConfig.maxOutputTokens`), capped by the model's documented maximum (pricing.yaml
 *   `max_output`); without a limit, that maximum; without either, DEFAULT_MAX_OUTPUT.
 */
export interface Reservation {
  tokens: number;
  /** Undefined when the model has no price. */
  costUsd?: number;
  /** Where the output bound came from, for the refusal message. */
  outputFrom: 'request' | 'model' | 'default';
  outputTokens: number;
}

export const PROVIDER_PROMPT_OVERHEAD = 1024;
/** For a model with no documented maximum in pricing.yaml and a request with no limit. */
export const DEFAULT_MAX_OUTPUT = 32_768;

export const NO_RESERVATION: Reservation = { tokens: 0, costUsd: 0, outputFrom: 'request', outputTokens: 0 };

export function reservationFor(
  api: Api,
  json: Record<string, unknown> | undefined,
  bodyBytes: number,
  model: string | undefined,
  pricing: Pricing,
): Reservation {
  if (api === 'other') return NO_RESERVATION;
  const price = model === undefined ? undefined : pricing.priceOf(model);
  const asked = requestedOutputLimit(api, json);
  const documented = price?.maxOutput;
  const outputTokens = asked !== undefined ? Math.min(asked, documented ?? asked) : (documented ?? DEFAULT_MAX_OUTPUT);
  const outputFrom = asked !== undefined ? 'request' : documented !== undefined ? 'model' : 'default';
  const inputTokens = bodyBytes + PROVIDER_PROMPT_OVERHEAD;
  const costUsd = price && (inputTokens * Math.max(price.input, price.cacheWrite ?? 0, price.cacheRead ?? 0) + outputTokens * price.output) / 1_000_000;
  return { tokens: inputTokens + outputTokens, ...(costUsd !== undefined ? { costUsd } : {}), outputFrom, outputTokens };
}

/**
 * The worst case of the smallest model request a sender can make to `model`: an empty body (the
 * provider's overhead alone as prompt) and `outputLimit` as its own output limit, or, when the
 * sender sets none (undefined), what a request without one reserves. A budget below this refuses
 * every request up front.
 */
export function smallestReservation(model: string, pricing: Pricing, outputLimit?: number): Reservation {
  return reservationFor('messages', outputLimit === undefined ? undefined : { max_tokens: outputLimit }, 0, model, pricing);
}

/** Where a reservation's output bound came from, for messages that refuse on it. */
export function outputBound(worst: Reservation): string {
  const from =
    worst.outputFrom === 'request'
      ? "the request's own limit"
      : worst.outputFrom === 'model'
        ? "the model's documented maximum"
        : 'the default for a model with no documented maximum';
  return `${worst.outputTokens} output tokens, ${from}, plus the request's size as prompt`;
}

const OUTPUT_LIMIT_FIELDS: Record<Exclude<Api, 'other'>, readonly string[]> = {
  chat: ['max_completion_tokens', 'max_tokens'],
  responses: ['max_output_tokens'],
  messages: ['max_tokens'],
  gemini: [],
  converse: [],
};

function requestedOutputLimit(api: Exclude<Api, 'other'>, json: Record<string, unknown> | undefined): number | undefined {
  if (json === undefined) return undefined;
  const source = api === 'gemini' ? json['generationConfig'] : api === 'converse' ? json['inferenceConfig'] : json;
  if (typeof source !== 'object' || source === null) return undefined;
  const fields = api === 'gemini' ? ['maxOutputTokens'] : api === 'converse' ? ['maxTokens'] : OUTPUT_LIMIT_FIELDS[api];
  for (const field of fields) {
    const value = (source as Record<string, unknown>)[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  return undefined;
}
