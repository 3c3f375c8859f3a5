import { appendFileSync, writeFileSync } from 'node:fs';
import { cutOutput } from '../../../core/format/index.js';
import type { AgentResult, StopReason } from '../../../core/types/index.js';

/**
 * `trajectory.jsonl`, one per attempt of the built-in agent, in the attempt directory: one JSON
 * object per line, written as the attempt goes, so a crashed or timed-out attempt keeps every
 * finished turn. This file imports nothing from the AI SDK. Readers (the report, the dashboard and
 * `crucible show`) all go through parseTrajectory in src/features/report/trajectory.ts.
 *
 *   {"type":"start","v":1,"t":0,"at":"2026-11-30T09:30:00.000Z","model":"openai:gpt-4.1-mini","system":"…","instruction":"…","tools":["bash",…],"limits":{…}}
 *   {"type":"turn","t":812,"turn":1,"text":"Let me look.","toolCalls":[{"id":"call_1","name":"read_file","input":{"path":"a.py"}}],
 *    "finishReason":"tool-calls","usage":{"inputTokens":1200,…},"modelMs":790,"retries":[{"status":429,"waitMs":2000,"error":"…"}]}
 *   {"type":"tool","t":830,"turn":1,"id":"call_1","name":"read_file","input":{"path":"a.py"},"ok":true,"output":"…","outputChars":5210,"ms":14}
 *   {"type":"nudge","t":900,"turn":2,"text":"…"}
 *   {"type":"end","t":4100,"stopReason":"submitted","turns":6,"toolCalls":9,"usage":{…},"timings":{…},"summary":"…"}
 *
 * Every line also has `at` (ISO time); `t` is milliseconds since the start. Tool `output` is what the model was sent, cut to
 * TRAJECTORY_OUTPUT_CHARS keeping its failure lines (format/output-cut.ts), with `outputChars` its
 * full length; long string inputs (write_file content) keep their head and tail. `usage` in `end` is the agent's own count; the attempt's
 * authoritative usage is the gateway's, in attempt.json.
 */
export const TRAJECTORY_VERSION = 1;
export const TRAJECTORY_FILE = 'trajectory.jsonl';
export const TRAJECTORY_OUTPUT_CHARS = 2000;

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

export interface TrajectoryToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type TrajectoryEvent =
  | {
      type: 'start';
      v: typeof TRAJECTORY_VERSION;
      t: number;
      at: string;
      model: string;
      system: string;
      instruction: string;
      tools: string[];
      limits: Record<string, number | undefined>;
    }
  | {
      type: 'turn';
      t: number;
      at: string;
      turn: number;
      /** An external agent's request whose system prompt differs from the one in `start`. */
      system?: string;
      text?: string;
      reasoning?: string;
      toolCalls: TrajectoryToolCall[];
      finishReason: string;
      usage: TurnUsage;
      modelMs: number;
      /** The model that answered, as the provider's response named it (turns read at the gateway). */
      model?: string;
      retries?: Array<{ status?: number; waitMs: number; error: string }>;
    }
  | {
      type: 'tool';
      t: number;
      at: string;
      turn: number;
      id: string;
      name: string;
      input: unknown;
      ok: boolean;
      output: string;
      outputChars: number;
      ms: number;
    }
  | { type: 'nudge'; t: number; at: string; turn: number; text: string }
  | {
      type: 'end';
      t: number;
      at: string;
      stopReason: StopReason;
      turns: number;
      toolCalls: number;
      usage?: AgentResult['usage'];
      timings?: AgentResult['timings'];
      error?: string;
      summary?: string;
    };

type Omitted<E> = E extends TrajectoryEvent ? Omit<E, 't' | 'at'> : never;

export interface TrajectoryWriter {
  write(event: Omitted<TrajectoryEvent>): void;
}

/**
 * Starts a fresh file; every write is appended synchronously so lines are whole and in order.
 * `now` gives `t` (monotonic ms) and `wall` gives `at`; a writer that records events after the
 * fact (an external agent's, from the gateway's turns) passes both from the events' own times.
 */
export function trajectoryWriter(file: string, now: () => number = () => performance.now(), wall: () => Date = () => new Date()): TrajectoryWriter {
  const started = now();
  writeFileSync(file, '');
  return {
    write(event) {
      const line = { ...event, t: Math.round(now() - started), at: wall().toISOString() };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    },
  };
}

/** Head and tail of a long string for the record, its full length kept beside it by the caller. */
export function abbreviate(text: string, max = TRAJECTORY_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.75);
  return `${text.slice(0, head)}\n[… ${text.length - max} characters not kept …]\n${text.slice(text.length - (max - head))}`;
}

/** A tool's output for the record: cut like the output the model saw, its failure lines kept wherever they are. */
export function abbreviateOutput(text: string, max = TRAJECTORY_OUTPUT_CHARS): string {
  return cutOutput(text, { maxChars: max });
}

/** A tool input with long string fields abbreviated (write_file content, edit_file strings). */
export function abbreviateInput(input: unknown): unknown {
  if (typeof input === 'string') return abbreviate(input);
  if (Array.isArray(input)) return input.map(abbreviateInput);
  if (typeof input === 'object' && input !== null) {
    return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, abbreviateInput(v)]));
  }
  return input;
}
