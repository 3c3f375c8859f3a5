import { parseModelSpec, PROVIDERS } from '../domain/agents/index.js';
import type { AgentProfile } from '../domain/agents/index.js';
import { isProfileSpec } from '../domain/agents/index.js';
import { checkModelSpecs, DEFAULT_MAX_TURNS, type ModelRunOptions } from '../engine/index.js';
import { InputError } from '../core/errors.js';
import type { AttemptResult } from '../core/types/index.js';
import { durationFlag, wholeNumber, writableStateDir } from './args.js';
import { table, usd as formatUsd } from './format.js';
import type { ModelCliOptions } from './model-options.js';
import { withFlagNames } from './option-flags.js';

/** Engine options from the flags; InputError (one line, exit 2) for bad values or a missing API key. */
export function modelRunOptions(
  opts: ModelCliOptions,
  agents: readonly string[],
  profiles: ReadonlyMap<string, AgentProfile> = new Map(),
): ModelRunOptions | undefined {
  const given = [
    opts.baseUrl,
    opts.maxTurns,
    opts.maxTokens,
    opts.maxCost,
    opts.maxCostTotal,
    opts.maxTokensTotal,
    opts.maxTestRuns,
    opts.agentTimeout,
    opts.providerStall,
    opts.record,
    opts.replay,
    opts.pricing,
  ];
  // Profile agents (`claude-code:<model>`) call models too, through the same gateway, but are no provider:model spec.
  const external = agents.filter((a) => isProfileSpec(a, profiles));
  const specs = agents.filter((a) => a.includes(':') && !isProfileSpec(a, profiles)).map(parseModelSpec);
  if (specs.length === 0 && external.length === 0 && given.every((v) => v === undefined)) return undefined;
  if (specs.length === 0 && external.length === 0 && opts.agentTimeout === undefined) {
    throw new InputError('model flags (--max-tokens, --replay, …) need a model agent (fix: add --model <provider>:<model> or --agent <profile>)');
  }
  const { baseUrl, baseUrls } = baseUrlFlags(opts.baseUrl ?? []);
  // Cassettes are written as the run goes: a --record path that is a file would fail every attempt.
  if (opts.record !== undefined) writableStateDir('--record', opts.record);
  const options: ModelRunOptions = {
    mode: opts.replay !== undefined ? 'replay' : opts.record !== undefined ? 'record' : 'live',
    ...(opts.replay !== undefined || opts.record !== undefined ? { cassetteDir: opts.replay ?? opts.record } : {}),
    ...(opts.pricing !== undefined ? { pricingFile: opts.pricing } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(baseUrls !== undefined ? { baseUrls } : {}),
    limits: {
      maxTurns: whole('--max-turns', opts.maxTurns) ?? DEFAULT_MAX_TURNS,
      maxTokens: whole('--max-tokens', opts.maxTokens),
      maxCostUsd: dollars(opts.maxCost),
      maxTestRuns: whole('--max-test-runs', opts.maxTestRuns, 0),
    },
    ...(opts.maxCostTotal !== undefined || opts.maxTokensTotal !== undefined
      ? {
          runLimits: {
            ...(opts.maxCostTotal !== undefined ? { maxCostUsd: dollars(opts.maxCostTotal, '--max-cost-total') } : {}),
            ...(opts.maxTokensTotal !== undefined ? { maxTokens: whole('--max-tokens-total', opts.maxTokensTotal) } : {}),
          },
        }
      : {}),
    ...(opts.agentTimeout !== undefined ? { agentTimeoutMs: durationFlag('--agent-timeout', opts.agentTimeout) } : {}),
    ...(opts.providerStall !== undefined ? { providerStallMs: stallFlag(opts.providerStall) } : {}),
  };
  // Keys, base URLs and prices are checked now, before any attempt starts.
  withFlagNames(() => checkModelSpecs(specs, options), options.mode === 'record' ? 'record' : 'replay');
  return options;
}

/** `--provider-stall 0` turns the stall limit off; anything else is a duration. */
function stallFlag(value: string): number {
  return value.trim() === '0' ? 0 : durationFlag('--provider-stall', value);
}

/**
 * `--base-url URL` (for the one provider the models use) and `--base-url provider=URL` (repeatable,
 * one per provider, so one run can mix agents of several providers against local upstreams).
 */
export function baseUrlFlags(values: readonly string[]): { baseUrl?: string; baseUrls?: Record<string, string> } {
  let baseUrl: string | undefined;
  const baseUrls: Record<string, string> = {};
  for (const value of values) {
    const named = /^([a-z][a-z0-9-]*)=(.*)$/.exec(value);
    const url = named ? (named[2] as string) : value;
    if (!isHttpUrl(url))
      throw new InputError(
        `--base-url ${value}: not an http(s) URL (fix: e.g. --base-url http://127.0.0.1:8000/v1 or --base-url openai=http://127.0.0.1:8000/v1)`,
      );
    if (named) {
      const provider = named[1] as string;
      if (!(provider in PROVIDERS)) {
        throw new InputError(`--base-url ${value}: unknown provider ${provider} (fix: use one of ${Object.keys(PROVIDERS).join(', ')})`);
      }
      if (baseUrls[provider] !== undefined) throw new InputError(`--base-url ${value}: ${provider} is given twice (fix: give each provider one URL)`);
      baseUrls[provider] = url;
    } else {
      if (baseUrl !== undefined)
        throw new InputError(`--base-url ${value}: a second URL without a provider (fix: name each one, e.g. --base-url anthropic=${url})`);
      baseUrl = url;
    }
  }
  return { ...(baseUrl !== undefined ? { baseUrl } : {}), ...(Object.keys(baseUrls).length > 0 ? { baseUrls } : {}) };
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** An optional whole-number flag: undefined when not given (no limit). */
function whole(flag: string, text: string | undefined, min = 1): number | undefined {
  return text === undefined ? undefined : wholeNumber(flag, text, min, min);
}

function dollars(text: string | undefined, flag = '--max-cost'): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replace(/^\$/, ''));
  if (!Number.isFinite(value) || value <= 0) throw new InputError(`${flag} ${text}: expected dollars (fix: e.g. ${flag} 0.50)`);
  return value;
}

/**
 * Tokens, cost and time per attempt of a model agent, with a total row; undefined when no attempt
 * has usage. Cost is blank for a model pricing.yaml does not price: never a guess.
 */
export function formatUsageTable(attempts: readonly AttemptResult[]): string | undefined {
  const metered = attempts.filter((a) => a.agentResult?.usage !== undefined);
  if (metered.length === 0) return undefined;
  // Exact token counts: this table is the ledger a bill is checked against, not a summary.
  const n = (v: number | undefined): string => (v === undefined ? '-' : v.toLocaleString('en-US'));
  const usd = (v: number | undefined): string => (v === undefined ? '-' : formatUsd(v));
  const s = (ms: number | undefined): string => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}s`);
  const rows = metered.map((a) => {
    const r = a.agentResult;
    const u = r?.usage;
    const replay =
      r?.replay && (r.replay.looseMatches > 0 || r.replay.misses > 0) ? ` (replay: ${r.replay.looseMatches} loose, ${r.replay.misses} missed)` : '';
    return [
      a.taskId,
      a.agent,
      String(a.trial),
      `${r?.stopReason ?? '-'}${replay}`,
      n(r?.turns),
      n(u?.requests),
      n(u?.inputTokens),
      n(u?.cacheReadTokens),
      n(u?.cacheWriteTokens),
      n(u?.outputTokens),
      n(u?.reasoningTokens),
      usd(u?.costUsd),
      s(r?.timings?.modelMs),
      s(r?.timings?.rateLimitWaitMs),
      s(r?.timings?.toolMs),
      s(r?.timings?.testMs),
    ];
  });
  const sum = (pick: (a: AttemptResult) => number | undefined): number | undefined => {
    const values = metered.map(pick);
    return values.some((v) => v === undefined) ? undefined : values.reduce<number>((t, v) => t + (v ?? 0), 0);
  };
  const u = (a: AttemptResult) => a.agentResult?.usage;
  rows.push([
    'total',
    '',
    '',
    '',
    n(sum((a) => a.agentResult?.turns ?? 0)),
    n(sum((a) => u(a)?.requests)),
    n(sum((a) => u(a)?.inputTokens)),
    n(sum((a) => u(a)?.cacheReadTokens)),
    n(sum((a) => u(a)?.cacheWriteTokens)),
    n(sum((a) => u(a)?.outputTokens)),
    n(sum((a) => u(a)?.reasoningTokens)),
    usd(sum((a) => u(a)?.costUsd)),
    s(sum((a) => a.agentResult?.timings?.modelMs ?? 0)),
    s(sum((a) => a.agentResult?.timings?.rateLimitWaitMs ?? 0)),
    s(sum((a) => a.agentResult?.timings?.toolMs ?? 0)),
    s(sum((a) => a.agentResult?.timings?.testMs ?? 0)),
  ]);
  const header = [
    'task',
    'agent',
    'trial',
    'stop',
    'turns',
    'requests',
    'input',
    'cache read',
    'cache write',
    'output',
    'reasoning',
    'cost',
    'model',
    'rate-limit wait',
    'tools',
    'tests',
  ];
  const replayed = metered.some((a) => (a.agentResult?.replay?.looseMatches ?? 0) + (a.agentResult?.replay?.misses ?? 0) > 0);
  const replayNote = replayed
    ? '\nreplay: N loose = N requests differed from the cassette only in tool output and got the recorded answer; M missed = M requests no recording matched (docs/agents.md#what-a-replayed-request-is-matched-on).'
    : '';
  return `${table(header, rows)}\nTokens and cost are the gateway's metering; input includes cached tokens, output includes reasoning. Cost "-" means the model is not in pricing.yaml.${replayNote}`;
}
