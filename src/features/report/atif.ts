import type { TrajectoryEvent as BuiltinEvent } from '../../domain/agents/index.js';
import { isJsonObject, jsonObjectLines, type JsonObject } from './json-lines.js';

/*
 * Harbor's Agent Trajectory Interchange Format (ATIF), as its RFC 0001 specifies it
 * (harbor-framework/harbor, rfcs/0001-trajectory-format.md, v1.7): a JSON document with
 * schema_version, session_id, agent {name, version, model_name?, extra?}, steps and optional
 * notes, final_metrics and extra. A step is the system prompt, a user message or one agent turn
 * (its tool calls, their observations, its metrics); step ids run 1, 2, 3, … and an observation's
 * source_call_id names a tool call of its own step.
 *
 * Crucible writes it from trajectory.jsonl (the built-in agent's, or an external agent's built from
 * the gateway's turns) and reads it for `crucible show` and the dashboard.
 */

export const ATIF_SCHEMA_VERSION = 'ATIF-v1.7';
/** The versions the RFC has published; a reader takes any of them. */
const KNOWN_VERSIONS = /^ATIF-v1\.[0-7]$/;

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

export interface AtifObservationResult {
  source_call_id?: string;
  content?: string;
  extra?: Record<string, unknown>;
}

export interface AtifMetrics {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  cost_usd?: number;
  extra?: Record<string, unknown>;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: 'system' | 'user' | 'agent';
  model_name?: string;
  message: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifObservationResult[] };
  metrics?: AtifMetrics;
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: string;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Record<string, unknown> };
  steps: AtifStep[];
  notes?: string;
  final_metrics?: {
    total_prompt_tokens?: number;
    total_completion_tokens?: number;
    total_cached_tokens?: number;
    total_cost_usd?: number;
    total_steps?: number;
    extra?: Record<string, unknown>;
  };
  extra?: Record<string, unknown>;
}

export interface AtifSource {
  /** The attempt id: ATIF's session_id. */
  sessionId: string;
  agentName: string;
  agentVersion: string;
  /** The attempt's metered cost (the gateway's, not the agent's own count), when priced. */
  costUsd?: number;
  extra?: Record<string, unknown>;
}

type Json = JsonObject;
const isObject = isJsonObject;

const BUILTIN_TYPES = new Set(['start', 'turn', 'tool', 'nudge', 'end']);

/** ATIF's arguments are a JSON object: any other input is kept under `input`. */
function argumentsOf(input: unknown): Record<string, unknown> {
  return isObject(input) ? input : { input };
}

/**
 * trajectory.jsonl as ATIF. Lines of the built-in type map field by field; a line of another shape
 * becomes a system step carrying it whole in `extra`, so nothing recorded is dropped. A tool result
 * becomes an observation of the agent step that called it.
 */
export function toAtif(jsonl: string, source: AtifSource): AtifTrajectory {
  const steps: AtifStep[] = [];
  const callsByStep = new Map<string, AtifStep>();
  let model: string | undefined;
  let end: Extract<BuiltinEvent, { type: 'end' }> | undefined;
  const agentExtra: Record<string, unknown> = {};
  const push = (step: Omit<AtifStep, 'step_id'>): AtifStep => {
    const full = { step_id: steps.length + 1, ...step } as AtifStep;
    steps.push(full);
    return full;
  };
  const { objects, unreadable } = jsonObjectLines(jsonl);
  for (const o of objects) {
    const at = typeof o.at === 'string' ? { timestamp: o.at } : {};
    if (!(typeof o.type === 'string' && BUILTIN_TYPES.has(o.type))) {
      push({ ...at, source: 'system', message: '', extra: { crucible_event: o } });
      continue;
    }
    const e = o as unknown as BuiltinEvent;
    switch (e.type) {
      case 'start':
        model = e.model;
        agentExtra.tools = e.tools;
        agentExtra.limits = e.limits;
        push({ ...at, source: 'system', message: e.system });
        push({ ...at, source: 'user', message: e.instruction });
        break;
      case 'turn': {
        if (e.system !== undefined) push({ ...at, source: 'system', message: e.system });
        const extra: Record<string, unknown> = { turn: e.turn, finish_reason: e.finishReason, model_ms: e.modelMs };
        if (e.retries?.length) extra.retries = e.retries;
        const step = push({
          ...at,
          source: 'agent',
          ...((e.model ?? model) ? { model_name: (e.model ?? model) as string } : {}),
          message: e.text ?? '',
          ...(e.reasoning ? { reasoning_content: e.reasoning } : {}),
          ...(e.toolCalls.length > 0
            ? { tool_calls: e.toolCalls.map((c) => ({ tool_call_id: c.id, function_name: c.name, arguments: argumentsOf(c.input) })) }
            : {}),
          metrics: {
            prompt_tokens: e.usage.inputTokens,
            completion_tokens: e.usage.outputTokens,
            cached_tokens: e.usage.cacheReadTokens,
            extra: { cache_write_tokens: e.usage.cacheWriteTokens, reasoning_tokens: e.usage.reasoningTokens },
          },
          extra,
        });
        for (const c of e.toolCalls) callsByStep.set(c.id, step);
        break;
      }
      case 'tool': {
        const result: AtifObservationResult = { content: e.output, extra: { ok: e.ok, ms: e.ms, output_chars: e.outputChars, name: e.name } };
        const step = callsByStep.get(e.id);
        if (step) {
          step.observation ??= { results: [] };
          step.observation.results.push({ source_call_id: e.id, ...result });
        } else {
          // A result whose call no agent step made (a line lost to a crash): kept, tied to no call.
          push({ ...at, source: 'system', message: '', observation: { results: [{ ...result, extra: { ...result.extra, tool_call_id: e.id } }] } });
        }
        break;
      }
      case 'nudge':
        push({ ...at, source: 'user', message: e.text, extra: { crucible_event: 'nudge', turn: e.turn } });
        break;
      case 'end':
        end = e;
        break;
    }
  }
  const agentSteps = steps.filter((s) => s.source === 'agent');
  const sum = (pick: (m: AtifMetrics) => number | undefined): number => agentSteps.reduce((n, s) => n + (s.metrics ? (pick(s.metrics) ?? 0) : 0), 0);
  const notes = [
    end ? `stopped: ${end.stopReason} after ${end.turns} turns and ${end.toolCalls} tool calls${end.error ? ` (${end.error})` : ''}` : undefined,
    unreadable > 0 ? `${unreadable} unreadable line(s) of trajectory.jsonl left out` : undefined,
  ].filter((n): n is string => n !== undefined);
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: source.sessionId,
    agent: {
      name: source.agentName,
      version: source.agentVersion,
      ...(model ? { model_name: model } : {}),
      ...(Object.keys(agentExtra).length > 0 ? { extra: agentExtra } : {}),
    },
    steps,
    ...(notes.length > 0 ? { notes: notes.join('; ') } : {}),
    final_metrics: {
      total_prompt_tokens: sum((m) => m.prompt_tokens),
      total_completion_tokens: sum((m) => m.completion_tokens),
      total_cached_tokens: sum((m) => m.cached_tokens),
      ...(source.costUsd !== undefined ? { total_cost_usd: source.costUsd } : {}),
      total_steps: steps.length,
    },
    extra: {
      ...(source.extra ?? {}),
      ...(end ? { stop_reason: end.stopReason, ...(end.summary ? { summary: end.summary } : {}) } : {}),
    },
  };
}

/** Whether a parsed JSON value claims to be an ATIF document (its schema_version says so). */
export function isAtif(value: unknown): value is Json {
  return isObject(value) && typeof value.schema_version === 'string' && value.schema_version.startsWith('ATIF-');
}

const AGENT_ONLY = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * What keeps a value from being an ATIF trajectory by the RFC's rules, each problem with its path
 * (`steps[2].tool_calls[0].function_name: missing`); empty when it is one.
 */
export function atifProblems(value: unknown): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, path: string, problem: string): void => void (ok || problems.push(`${path}: ${problem}`));
  const str = (o: Json, key: string, path: string, required: boolean): void => {
    if (o[key] === undefined) need(!required, `${path}${key}`, 'missing');
    else need(typeof o[key] === 'string', `${path}${key}`, 'not a string');
  };
  const count = (o: Json, key: string, path: string): void => {
    if (o[key] !== undefined) need(Number.isInteger(o[key]) && (o[key] as number) >= 0, `${path}${key}`, 'not a whole number ≥ 0');
  };
  const obj = (v: unknown, path: string): v is Json => (isObject(v) ? true : (problems.push(`${path}: not an object`), false));
  if (!obj(value, 'trajectory')) return problems;
  str(value, 'schema_version', '', true);
  if (typeof value.schema_version === 'string')
    need(KNOWN_VERSIONS.test(value.schema_version), 'schema_version', `${value.schema_version} is not a published ATIF version`);
  const v17 = value.schema_version === 'ATIF-v1.7';
  str(value, 'session_id', '', !v17);
  str(value, 'notes', '', false);
  if (value.agent === undefined) problems.push('agent: missing');
  else if (obj(value.agent, 'agent')) {
    str(value.agent, 'name', 'agent.', true);
    str(value.agent, 'version', 'agent.', true);
    str(value.agent, 'model_name', 'agent.', false);
  }
  if (value.final_metrics !== undefined && obj(value.final_metrics, 'final_metrics')) {
    for (const k of ['total_prompt_tokens', 'total_completion_tokens', 'total_cached_tokens', 'total_steps']) count(value.final_metrics, k, 'final_metrics.');
  }
  if (!Array.isArray(value.steps)) {
    problems.push(value.steps === undefined ? 'steps: missing' : 'steps: not an array');
    return problems;
  }
  value.steps.forEach((step: unknown, i: number) => {
    const at = `steps[${i}]`;
    if (!obj(step, at)) return;
    need(step.step_id === i + 1, `${at}.step_id`, `expected ${i + 1} (sequential from 1), got ${JSON.stringify(step.step_id)}`);
    need(step.source === 'system' || step.source === 'user' || step.source === 'agent', `${at}.source`, 'not one of system, user, agent');
    if (step.message === undefined) problems.push(`${at}.message: missing`);
    else need(typeof step.message === 'string' || Array.isArray(step.message), `${at}.message`, 'not a string or a list of content parts');
    if (step.timestamp !== undefined)
      need(
        typeof step.timestamp === 'string' && ISO_8601.test(step.timestamp) && !Number.isNaN(Date.parse(step.timestamp)),
        `${at}.timestamp`,
        'not an ISO 8601 time',
      );
    if (step.source !== 'agent') for (const k of AGENT_ONLY) need(step[k] === undefined, `${at}.${k}`, 'agent-only, on a step whose source is not agent');
    const ids = new Set<string>();
    if (step.tool_calls !== undefined) {
      if (!Array.isArray(step.tool_calls)) problems.push(`${at}.tool_calls: not an array`);
      else
        step.tool_calls.forEach((call: unknown, j: number) => {
          const cat = `${at}.tool_calls[${j}]`;
          if (!obj(call, cat)) return;
          str(call, 'tool_call_id', `${cat}.`, true);
          str(call, 'function_name', `${cat}.`, true);
          need(isObject(call.arguments), `${cat}.arguments`, 'not an object');
          if (typeof call.tool_call_id === 'string') {
            need(!ids.has(call.tool_call_id), `${cat}.tool_call_id`, `duplicate id ${call.tool_call_id}`);
            ids.add(call.tool_call_id);
          }
        });
    }
    if (step.metrics !== undefined && obj(step.metrics, `${at}.metrics`)) {
      for (const k of ['prompt_tokens', 'completion_tokens', 'cached_tokens']) count(step.metrics, k, `${at}.metrics.`);
    }
    if (step.observation !== undefined && obj(step.observation, `${at}.observation`)) {
      const results = step.observation.results;
      if (!Array.isArray(results)) problems.push(`${at}.observation.results: ${results === undefined ? 'missing' : 'not an array'}`);
      else
        results.forEach((r: unknown, j: number) => {
          const rat = `${at}.observation.results[${j}]`;
          if (!obj(r, rat)) return;
          if (r.source_call_id !== undefined && r.source_call_id !== null) {
            need(
              typeof r.source_call_id === 'string' && ids.has(r.source_call_id),
              `${rat}.source_call_id`,
              `unknown tool_call_id ${JSON.stringify(r.source_call_id)} (not a call of this step)`,
            );
          }
          if (r.content !== undefined && r.content !== null)
            need(typeof r.content === 'string' || Array.isArray(r.content), `${rat}.content`, 'not a string or a list of content parts');
        });
    }
  });
  return problems;
}
