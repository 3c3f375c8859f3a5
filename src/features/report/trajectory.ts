import type { TrajectoryEvent as BuiltinEvent } from '../../domain/agents/index.js';
import type { CommandView, TrajectoryEvent } from './view.js';
import { cutOutput } from '../../core/format/index.js';
import { isAtif } from './atif.js';
import { jsonObjectLines } from './json-lines.js';

/*
 * Reads trajectory.jsonl and commands.jsonl for display. The built-in agent's lines follow the
 * documented type in agents/builtin/trajectory.ts and are mapped field by field; anything else (an
 * external agent's log, a future line type) becomes a generic event. Reading is bounded and never
 * throws: a line cut short by a crash is counted as unreadable, and the report still renders.
 */

export const MAX_EVENTS = 500;
export const MAX_DETAIL_CHARS = 4000;
const MAX_TITLE_CHARS = 160;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function firstString(o: Json, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = str(o[k]);
    if (v !== null) return v;
  }
  return null;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function oneLine(text: string): string {
  return cut(text.replace(/\s+/g, ' ').trim(), MAX_TITLE_CHARS);
}

/** Content may be a string, a list of parts ({type:'text', text}) or any JSON. */
function contentText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const parts = v.map((p) => (isObject(p) ? (str(p.text) ?? JSON.stringify(p)) : String(p)));
    return parts.join('\n');
  }
  return JSON.stringify(v, null, 2);
}

const BUILTIN_TYPES = new Set(['start', 'turn', 'tool', 'nudge', 'end']);

function isBuiltin(o: Json): o is Json & BuiltinEvent {
  return typeof o.type === 'string' && BUILTIN_TYPES.has(o.type) && typeof o.t === 'number';
}

const inputText = (input: unknown): string => (typeof input === 'string' ? input : JSON.stringify(input));

/** The built-in agent's events, as its trajectory type documents them. */
function fromBuiltin(e: BuiltinEvent, index: number): TrajectoryEvent {
  const base = { index, type: e.type, at: e.at ?? null, role: null, tool: null, durationMs: null, tokens: null };
  switch (e.type) {
    case 'start':
      return {
        ...base,
        role: 'harness',
        title: oneLine(`${e.model} · tools: ${e.tools.join(', ')}`),
        detail: cut(`instruction:\n${e.instruction}\n\nsystem prompt:\n${e.system}`, MAX_DETAIL_CHARS),
      };
    case 'turn': {
      const calls = e.toolCalls.map((c) => `→ ${c.name} ${inputText(c.input)}`);
      const retries = e.retries?.length ? [`retried ${e.retries.length}×: ${e.retries.map((r) => r.error).join('; ')}`] : [];
      const body = [e.reasoning ? `(thinking) ${e.reasoning}` : null, e.text ?? null, ...calls, ...retries].filter((x): x is string => !!x);
      return {
        ...base,
        role: 'assistant',
        tool: e.toolCalls.map((c) => c.name).join(', ') || null,
        title: oneLine(`turn ${e.turn}: ${e.text?.trim() || calls.join('  ') || e.finishReason}`),
        detail: body.length > 0 ? cut(body.join('\n'), MAX_DETAIL_CHARS) : null,
        durationMs: e.modelMs,
        tokens: e.usage.inputTokens + e.usage.outputTokens,
      };
    }
    case 'tool':
      return {
        ...base,
        role: 'tool',
        tool: e.name,
        title: oneLine(`${e.ok ? '←' : '✗'} ${e.name} ${inputText(e.input)}`),
        // Cut like any output: a head-only cut would drop the output's failure lines after a long input.
        detail: cutOutput(
          `input: ${JSON.stringify(e.input, null, 2)}\n\noutput${e.outputChars > e.output.length ? ` (${e.outputChars} characters, abbreviated)` : ''}:\n${e.output}`,
          { maxChars: MAX_DETAIL_CHARS },
        ),
        durationMs: e.ms,
      };
    case 'nudge':
      return { ...base, role: 'harness', title: oneLine(`nudge: ${e.text}`), detail: e.text.length > MAX_TITLE_CHARS ? cut(e.text, MAX_DETAIL_CHARS) : null };
    case 'end':
      return {
        ...base,
        role: 'harness',
        title: oneLine(`stopped: ${e.stopReason} after ${e.turns} turns, ${e.toolCalls} tool calls${e.error ? `: ${e.error}` : ''}`),
        detail: e.summary ? cut(e.summary, MAX_DETAIL_CHARS) : null,
        tokens: e.usage ? e.usage.inputTokens + e.usage.outputTokens : null,
      };
  }
}

function toEvent(o: Json, index: number): TrajectoryEvent {
  if (isBuiltin(o)) {
    try {
      return fromBuiltin(o, index);
    } catch {
      // A line that claims a built-in type but lacks its fields: shown generically below.
    }
  }
  const type = firstString(o, ['type', 'kind', 'event']) ?? (str(o.role) !== null ? 'message' : 'event');
  const role = str(o.role);
  const tool = firstString(o, ['tool', 'toolName', 'tool_name', 'name']);
  const at = firstString(o, ['at', 'timestamp', 'ts', 'time']);
  const text = contentText(o.text ?? o.content ?? o.message ?? o.error ?? o.reason);
  const input = o.input ?? o.args ?? o.arguments;
  const output = o.output ?? o.result;
  const details = [
    text,
    input === undefined ? null : `input: ${contentText(input) ?? ''}`,
    output === undefined ? null : `output: ${contentText(output) ?? ''}`,
  ].filter((d): d is string => d !== null && d.length > 0);
  const detail = details.length > 0 ? cut(details.join('\n'), MAX_DETAIL_CHARS) : null;
  const head = [tool, role].filter((s) => s !== null).join(' · ');
  const title = oneLine(text ?? (input !== undefined ? (contentText(input) ?? '') : output !== undefined ? (contentText(output) ?? '') : head || type));
  const usage = isObject(o.usage) ? o.usage : null;
  const tokens = num(o.tokens) ?? (usage ? (num(usage.inputTokens) ?? 0) + (num(usage.outputTokens) ?? 0) || null : null);
  return {
    index,
    type,
    at,
    role,
    tool,
    title: title || type,
    detail: detail !== null && detail !== title ? detail : null,
    durationMs: num(o.durationMs) ?? num(o.duration_ms) ?? num(o.ms),
    tokens,
  };
}

export interface ParsedTrajectory {
  events: TrajectoryEvent[];
  total: number;
  truncated: boolean;
  unreadableLines: number;
}

/**
 * One ATIF document (Harbor's trajectory.json, features/report/atif.ts) as events: each step one
 * event, each observation result one `tool` event after its step. Read leniently, like any line.
 */
export function parseAtifTrajectory(doc: Json, maxEvents = MAX_EVENTS): ParsedTrajectory {
  const steps = Array.isArray(doc.steps) ? doc.steps : [];
  const events: TrajectoryEvent[] = [];
  let total = 0;
  let unreadable = 0;
  const add = (e: Omit<TrajectoryEvent, 'index'>): void => {
    total += 1;
    if (events.length < maxEvents) events.push({ ...e, index: total - 1 });
  };
  for (const step of steps) {
    if (!isObject(step)) {
      unreadable += 1;
      continue;
    }
    const source = str(step.source) ?? 'step';
    const at = str(step.timestamp);
    const message = contentText(step.message) ?? '';
    const calls = (Array.isArray(step.tool_calls) ? step.tool_calls : []).filter(isObject);
    const callLines = calls.map((c) => `→ ${str(c.function_name) ?? '?'} ${inputText(c.arguments)}`);
    const metrics = isObject(step.metrics) ? step.metrics : null;
    const tokens = metrics ? (num(metrics.prompt_tokens) ?? 0) + (num(metrics.completion_tokens) ?? 0) || null : null;
    const body = [str(step.reasoning_content) ? `(thinking) ${String(step.reasoning_content)}` : null, message || null, ...callLines].filter(
      (x): x is string => !!x,
    );
    const title = source === 'agent' ? `step ${String(step.step_id)}: ${message.trim() || callLines.join('  ') || '(no message)'}` : `${source}: ${message}`;
    add({
      type: source === 'agent' ? 'turn' : source,
      at,
      role: source === 'agent' ? 'assistant' : source,
      tool:
        calls
          .map((c) => str(c.function_name))
          .filter((n) => n !== null)
          .join(', ') || null,
      title: oneLine(title),
      detail:
        body.length > 0 && body.join('\n') !== message.trim()
          ? cut(body.join('\n'), MAX_DETAIL_CHARS)
          : message.length > MAX_TITLE_CHARS
            ? cut(message, MAX_DETAIL_CHARS)
            : null,
      durationMs: null,
      tokens,
    });
    const results = isObject(step.observation) && Array.isArray(step.observation.results) ? step.observation.results.filter(isObject) : [];
    for (const r of results) {
      const call = calls.find((c) => c.tool_call_id === r.source_call_id);
      const name = call ? str(call.function_name) : null;
      const content = contentText(r.content) ?? '';
      add({
        type: 'tool',
        at,
        role: 'tool',
        tool: name,
        title: oneLine(`← ${name ?? 'result'} ${content}`),
        detail: content.length > 0 ? cutOutput(content, { maxChars: MAX_DETAIL_CHARS }) : null,
        durationMs: null,
        tokens: null,
      });
    }
  }
  return { events, total, truncated: total > events.length, unreadableLines: unreadable };
}

/** A whole file that is one ATIF document, or undefined (then it is read as JSON Lines). */
function atifDocument(text: string): Json | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const doc: unknown = JSON.parse(text);
    return isAtif(doc) ? doc : undefined;
  } catch {
    return undefined;
  }
}

export function parseTrajectory(jsonl: string, maxEvents = MAX_EVENTS): ParsedTrajectory {
  const atif = atifDocument(jsonl);
  if (atif) return parseAtifTrajectory(atif, maxEvents);
  const { objects, unreadable } = jsonObjectLines(jsonl);
  const events = objects.slice(0, maxEvents).map((o, i) => toEvent(o, i));
  const total = objects.length;
  return { events, total, truncated: total > events.length, unreadableLines: unreadable };
}

/**
 * Plain text for the terminal (`crucible show`): the same events the dashboard and the report draw,
 * one line each with its offset from the first event, the detail indented below.
 */
export function formatTrajectoryText(parsed: ParsedTrajectory): string {
  const start = parsed.events.map((e) => (e.at === null ? Number.NaN : Date.parse(e.at))).find((t) => Number.isFinite(t));
  const out: string[] = [];
  for (const e of parsed.events) {
    const at = e.at === null || start === undefined ? Number.NaN : Date.parse(e.at) - start;
    const figures = [e.tokens !== null ? `${e.tokens} tokens` : null, e.durationMs !== null ? `${e.durationMs} ms` : null].filter((f) => f !== null);
    out.push(`${Number.isFinite(at) ? `[${(at / 1000).toFixed(1)}s] ` : ''}${e.title}${figures.length > 0 ? ` (${figures.join(', ')})` : ''}`);
    if (e.detail !== null) out.push(...e.detail.split('\n').map((line) => `    ${line}`));
  }
  if (parsed.truncated) out.push(`… ${parsed.total - parsed.events.length} more events in the file`);
  if (parsed.unreadableLines > 0) out.push(`${parsed.unreadableLines} unreadable line(s) skipped`);
  return out.join('\n');
}

export function parseCommands(jsonl: string, max = MAX_EVENTS): { items: CommandView[]; total: number; truncated: boolean } {
  const items: CommandView[] = [];
  let total = 0;
  for (const o of jsonObjectLines(jsonl).objects) {
    if (!Array.isArray(o.argv)) continue;
    total += 1;
    if (items.length >= max) continue;
    items.push({
      at: str(o.at) ?? '',
      argv: o.argv.map((a) => cut(String(a), MAX_DETAIL_CHARS)),
      exitCode: num(o.exitCode),
      timedOut: o.timedOut === true,
      durationMs: num(o.durationMs) ?? 0,
    });
  }
  return { items, total, truncated: total > items.length };
}
