/**
 * The model gateway: one local HTTP server that all agent model traffic goes through, so every
 * agent is metered alike, budgets hold, real API keys stay outside the sandbox, and sessions can be
 * recorded once and replayed offline. See types.ts for the option and result shapes.
 */
export { startGateway } from './gateway.js';
export type {
  Budget,
  BudgetLimit,
  Gateway,
  ModelTurn,
  GatewayMode,
  GatewayOptions,
  RefusalReason,
  ReplayMiss,
  Session,
  SessionOptions,
  SessionUsage,
  UpstreamConfig,
  UpstreamAuth,
  UpstreamKind,
} from './types.js';
export { DEFAULT_UPSTREAMS } from './upstreams.js';
export { DEFAULT_PROVIDER_STALL_MS } from './provider-watch.js';
export type { MeteredApi, TokenUsage } from './usage-readers.js';
export type { AnsweredCall } from './request-readers.js';
export { FIXED_PATTERNS, SESSION_TOKEN_AS, type VolatileValue } from './volatile.js';
export { loadPricing, pricingFromTable, PricingError, type ModelPrice, type Pricing, type TokenCounts } from './pricing.js';
export {
  CASSETTE_VERSION,
  CassetteError,
  cassetteKeyText,
  cassettePath,
  findCassette,
  flatCassettePath,
  readCassette,
  loadCassette,
  MAX_CASSETTE_BYTES,
  type CassetteExchange,
  type CassetteHeader,
  type CassetteKey,
} from './cassette.js';
export { bundledPricingPath } from './pricing.js';
export { outputBound, smallestReservation, type Reservation } from './reservation.js';
export {
  RunPool,
  LocalPoolStore,
  addSpend,
  type RunPoolLimits,
  type Spend,
  type PoolAdmission,
  type PoolHold,
  type PoolStore,
  type PoolTotals,
} from './run-pool.js';
