import { existsSync, realpathSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { upstreamFor, type Agent, type ModelAccess, type ModelLimits, type ModelSpec, type ProviderName } from '../domain/agents/index.js';
import { OptionError } from '../core/errors.js';
import {
  CassetteError,
  cassetteKeyText,
  findCassette,
  loadCassette,
  loadPricing,
  PricingError,
  type RunPool,
  startGateway,
  type Gateway,
  type GatewayMode,
  type Pricing,
  type UpstreamConfig,
} from '../infra/gateway/index.js';
import type { AgentResult, AttemptPlan } from '../core/types/index.js';
import type { RunLimits } from './run-budget.js';

/**
 * The model gateway's life in a run: started once before the first attempt when any agent calls
 * a model, one session per attempt of such an agent, closed when the run ends. The run engine
 * calls startRunModels and close(); runAgent calls openAttempt and finish().
 */
export interface ModelRunOptions {
  /** `live` (default) forwards to the providers; `record` also writes cassettes; `replay` answers from them offline. */
  mode?: GatewayMode;
  cassetteDir?: string;
  /** A pricing.yaml whose entries win over the bundled one. */
  pricingFile?: string;
  /** Replaces the provider's default upstream URL (required for openai-compatible); only when the models use one provider. */
  baseUrl?: string;
  /** Per provider (`anthropic`, `openai`, …), its upstream URL; wins over `baseUrl`. */
  baseUrls?: Record<string, string>;
  limits?: Partial<ModelLimits>;
  /** Caps on the whole run (local runs; see run-budget.ts): no new attempt starts once one is reached. */
  runLimits?: RunLimits;
  /** Overrides every task's agent_timeout. */
  agentTimeoutMs?: number;
  /** Where API keys are read; default process.env. Keys are read, never written. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Longest silence of a provider before the gateway cuts the request off as stalled (default 5 min; 0: none). */
  providerStallMs?: number;
}

export interface AttemptModelSession {
  access: ModelAccess;
  /** Closes the session and records the gateway's metering as the attempt's usage. */
  finish(result: AgentResult): AgentResult;
}

/** Paths that differ on every run of the same attempt; requests name them by placeholder in cassettes. */
export interface AttemptPlaces {
  workspace: string;
  home: string;
  attemptDir: string;
  /** Where the agent's program is installed: agents put it in prompts (Gemini CLI's skills list), and it differs per machine. */
  agentDirs?: readonly string[];
}

export interface RunModels {
  readonly agentTimeoutMs?: number;
  /** Where sandboxed programs reach the gateway (layout.gateway); the port is the gateway's own, so its URLs hold inside and out. */
  readonly gateway?: { socketPath: string; port: number };
  /** A gateway session for one attempt of a model agent; undefined for agents that call no model. */
  openAttempt(plan: Pick<AttemptPlan, 'attemptId' | 'taskId' | 'trial'>, agent: Agent, places?: AttemptPlaces): AttemptModelSession | undefined;
  close(): Promise<void>;
}

export const DEFAULT_MAX_TURNS = 50;

/** What the agent sends as its key; the gateway swaps in the real one upstream. */
const SESSION_KEY = 'crucible-gateway-session';

interface CheckedModels {
  mode: GatewayMode;
  cassetteDir?: string;
  upstreams: Record<string, UpstreamConfig>;
  pricing: Pricing;
  limits: ModelLimits;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Checks the model specs against the options — cassette directory, base URL, API keys (unless
 * replaying), prices when a cost limit is set — reading keys' presence, never their values.
 * Bad input is an OptionError naming the ModelRunOptions field, so a run fails here before any
 * attempt starts.
 */
export function checkModelSpecs(specs: readonly ModelSpec[], opts: ModelRunOptions): CheckedModels {
  const mode = opts.mode ?? 'live';
  const env = opts.env ?? process.env;
  const cassetteDir = opts.cassetteDir === undefined ? undefined : resolve(opts.cassetteDir);
  if (mode !== 'live' && cassetteDir === undefined)
    throw new OptionError([{ field: 'models.cassetteDir' }], `mode ${mode} needs a cassette directory`, 'give the directory');
  if (mode === 'replay' && !(existsSync(cassetteDir as string) && statSync(cassetteDir as string).isDirectory())) {
    throw new OptionError([{ field: 'models.cassetteDir', value: opts.cassetteDir }], 'no such directory', 'pass a directory that a recording run wrote');
  }
  const providers = [...new Set(specs.map((s) => s.provider))];
  if (opts.baseUrl !== undefined && providers.length > 1) {
    throw new OptionError(
      [{ field: 'models.baseUrl' }],
      `applies to one provider, but the models use ${providers.join(', ')}`,
      `name the provider: ${providers.map((p) => `${p}=URL`).join(', ')}`,
    );
  }
  const upstreams: Partial<Record<ProviderName, UpstreamConfig>> = {};
  for (const spec of specs) {
    if (upstreams[spec.provider]) continue;
    const baseUrl = opts.baseUrls?.[spec.provider] ?? opts.baseUrl;
    upstreams[spec.provider] = upstreamFor(spec.provider, { env, baseUrl, replay: mode === 'replay', spec: spec.spec }).config;
  }
  const pricing = loadPricingOrFail(opts.pricingFile);
  const limits: ModelLimits = { maxTurns: DEFAULT_MAX_TURNS, ...definedOnly(opts.limits ?? {}) };
  if (limits.maxCostUsd !== undefined || opts.runLimits?.maxCostUsd !== undefined) {
    const unpriced = specs.find((s) => !pricing.priceOf(s.modelId));
    if (unpriced) {
      const field = limits.maxCostUsd !== undefined ? 'models.limits.maxCostUsd' : 'models.runLimits.maxCostUsd';
      throw new OptionError(
        [{ field }],
        // An external agent's spec is its name (`qwen-code`): the price belongs to the model it runs.
        `model ${unpriced.modelId}${unpriced.spec === unpriced.modelId ? '' : ` (agent ${unpriced.spec})`} has no price in pricing.yaml, so a cost limit cannot hold`,
        `price it in a file passed as {models.pricingFile} (${unpriced.provider}: { ${unpriced.modelId}: { input: <usd per M>, output: <usd per M> } }), or drop {${field}}`,
      );
    }
  }
  return { mode, ...(cassetteDir ? { cassetteDir } : {}), upstreams: upstreams as Record<string, UpstreamConfig>, pricing, limits, env };
}

/** The cassette of one attempt of a model agent: `<task>/<agent>/<trial>`, the same in every run; as parts, so an agent name with `/` stays one. */
export function cassetteKey(plan: Pick<AttemptPlan, 'taskId' | 'trial'>, agent: Pick<Agent, 'name'>): readonly string[] {
  return [plan.taskId, agent.name, String(plan.trial)];
}

/** How many missing recordings a message names before it counts the rest. */
const MISSING_SHOWN = 3;

/**
 * With `--replay`, every planned attempt of a model agent needs its recording, and every recording
 * must be one: checked for all of them before any attempt starts (and before any setup runs), so
 * a run never fails one attempt at a time after paying for each one's setup. A missing recording
 * is named with the first others missing and how many in all; a recording that is not a regular
 * file, too large, malformed in any line or of another attempt (see loadCassette) by its file.
 * Read without blocking, so a FIFO or a device in the directory cannot hold the run.
 */
export async function checkReplayCassettes(
  attempts: readonly AttemptPlan[],
  agentOf: (spec: string) => Agent,
  opts: ModelRunOptions | undefined,
): Promise<void> {
  if (opts?.mode !== 'replay' || opts.cassetteDir === undefined) return;
  const dir = resolve(opts.cassetteDir);
  const model = attempts.filter((a) => agentOf(a.agent).modelSpec !== undefined);
  const keys = model.map((a) => cassetteKey(a, agentOf(a.agent)));
  const missing = keys.filter((key) => findCassette(dir, key) === undefined).map(cassetteKeyText);
  const field = [{ field: 'models.cassetteDir', value: opts.cassetteDir }];
  if (missing.length > 0) {
    const shown = missing.slice(0, MISSING_SHOWN).join(', ');
    const more = missing.length > MISSING_SHOWN ? `, and ${missing.length - MISSING_SHOWN} more` : '';
    throw new OptionError(
      field,
      `no recording for ${missing.length} of the ${model.length} planned model attempt(s): ${shown}${more}`,
      'record them first with --record into this directory (same tasks, agents and {trials}), or pass the directory that holds their recordings',
    );
  }
  for (const key of keys) {
    try {
      await loadCassette(findCassette(dir, key) as string, key);
    } catch (error) {
      if (error instanceof CassetteError) throw new OptionError(field, error.message);
      throw error;
    }
  }
}

/** Checks the model agents (see checkModelSpecs) and starts the gateway; undefined when nothing needs it. */
export async function startRunModels(agents: readonly Agent[], options: ModelRunOptions | undefined, runPool?: RunPool): Promise<RunModels | undefined> {
  const specs = agents.flatMap((a) => (a.modelSpec ? [a.modelSpec] : []));
  if (specs.length === 0 && options === undefined) return undefined;
  const agentTimeoutMs = options?.agentTimeoutMs;
  if (specs.length === 0) return { agentTimeoutMs, openAttempt: () => undefined, close: async () => undefined };
  const { mode, cassetteDir, upstreams, pricing, limits, env } = checkModelSpecs(specs, options ?? {});

  // A Unix socket path must fit in 108 bytes: a short temporary directory, not the state dir.
  const socketDir = await mkdtemp(join(tmpdir(), 'crucible-gw-'));
  const socketPath = join(socketDir, 'gateway.sock');
  let gateway: Gateway;
  try {
    const stallMs = options?.providerStallMs;
    gateway = await startGateway({
      mode,
      ...(cassetteDir ? { cassetteDir } : {}),
      pricing,
      upstreams,
      env,
      socketPath,
      ...(stallMs !== undefined ? { stallMs } : {}),
      ...(runPool ? { runPool } : {}),
    });
  } catch (error) {
    await rm(socketDir, { recursive: true, force: true });
    throw error;
  }
  return {
    agentTimeoutMs,
    gateway: { socketPath, port: Number(new URL(gateway.url).port) },
    openAttempt(plan, agent, places) {
      const spec = agent.modelSpec;
      if (!spec) return undefined;
      const cassette = cassetteKey(plan, agent);
      if (mode === 'replay' && findCassette(cassetteDir as string, cassette) === undefined) {
        throw new Error(`no recording of ${cassetteKeyText(cassette)} in ${cassetteDir} (record one with --record)`);
      }
      const session = gateway.openSession(plan.attemptId, {
        model: spec.modelId,
        ...(agent.otherModels ? { otherModels: agent.otherModels } : {}),
        cassette,
        budget: {
          ...(limits.maxTokens !== undefined ? { maxTokens: limits.maxTokens } : {}),
          ...(limits.maxCostUsd !== undefined ? { maxCostUsd: limits.maxCostUsd } : {}),
          // An agent that counts no turns of its own the harness can stop is held to them here.
          ...(agent.turnsAtGateway ? { maxRequests: limits.maxTurns } : {}),
        },
        ...(places ? { volatile: volatileValues(places) } : {}),
      });
      return {
        access: {
          baseUrls: session.baseUrls,
          apiKey: SESSION_KEY,
          limits,
          pricing,
          replaying: mode === 'replay',
          turns: () => gateway.turns(plan.attemptId),
        },
        finish: (result) => {
          const metered = gateway.usage(plan.attemptId);
          const provider = gateway.provider(plan.attemptId);
          gateway.closeSession(plan.attemptId);
          const { latencyMs, budgetExceeded, unmeteredResponses: _u, replayMisses, replayLooseMatches, ...usage } = metered;
          // A refusal by the gateway ends the attempt on the budget, whatever the agent made of the
          // refusal; a request limit is the turn limit of an agent whose turns the gateway counts.
          const refused = budgetExceeded === 'requests' ? 'max_turns' : 'budget_exceeded';
          const stopReason = budgetExceeded && result.stopReason !== 'timeout' && result.stopReason !== 'submitted' ? refused : result.stopReason;
          const firstMiss = replayMisses[0]?.diff;
          return {
            ...result,
            stopReason,
            usage,
            // Waits as the gateway saw them: from a failed or refused answer to the next request.
            timings: { ...result.timings, modelMs: latencyMs, rateLimitWaitMs: provider.retryWaitMs },
            ...(mode === 'replay'
              ? { replay: { looseMatches: replayLooseMatches, misses: replayMisses.length, ...(firstMiss !== undefined ? { firstMiss } : {}) } }
              : {}),
            ...(provider.requests > 0 ? { provider } : {}),
          };
        },
      };
    },
    close: async () => {
      try {
        await gateway.close();
      } finally {
        await rm(socketDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The attempt's paths, longest first (the attempt directory holds the others), each also as the
 * real path the agent may see after resolving symlinks (a /tmp that is a link).
 */
export function volatileValues(places: AttemptPlaces): Array<{ value: string; as: string }> {
  const named: Array<[string, string]> = [
    [places.workspace, '<workspace>'],
    [places.home, '<home>'],
    [places.attemptDir, '<attempt>'],
    ...(places.agentDirs ?? []).map((dir): [string, string] => [dir, '<agent>']),
  ];
  const values = new Map<string, string>();
  for (const [path, as] of named) {
    for (const value of [path, realOrSame(path)]) if (!values.has(value)) values.set(value, as);
  }
  return [...values].map(([value, as]) => ({ value, as })).sort((a, b) => b.value.length - a.value.length);
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function loadPricingOrFail(file: string | undefined): Pricing {
  try {
    return loadPricing(file);
  } catch (error) {
    if (error instanceof PricingError)
      throw new OptionError(
        [{ field: 'models.pricingFile' }],
        error.message.split('\n')[0] ?? 'cannot be read',
        'correct the file, or drop {models.pricingFile} to use the bundled prices',
      );
    throw error;
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
