import { abbreviate, abbreviateInput, abbreviateOutput, trajectoryWriter, TRAJECTORY_FILE, type TurnUsage } from '../builtin/trajectory.js';
import type { AnsweredCall, ModelTurn } from '../../../infra/gateway/index.js';
import type { AgentResult } from '../../../core/types/index.js';
import type { ParsedOutput, ReportedTool } from './outputs/index.js';
import { join } from 'node:path';

/**
 * An external agent's trajectory.jsonl, in the built-in agent's format (builtin/trajectory.ts) so
 * every reader renders it the same way. Turns come from the gateway, which saw every model
 * exchange whatever the agent: what the model said and asked for (its responses), the system
 * prompt and the tool results the agent sent back (its requests). Each call is followed by its
 * result: the output the gateway saw sent back under the call's id, and whether it failed as the
 * agent's own output reports it — matched by the call id, or, for an agent that numbers its tools
 * itself (Codex), paired in order with the calls of the tools it names when there are as many.
 * Tools the output reports that match no call (or no turns read) follow the last turn, so nothing
 * the agent said it did is dropped. Written once, after the agent stopped.
 */
export interface ExternalTrajectoryInput {
  attemptDir: string;
  /** The agent spec, as the built-in agent records its model spec. */
  spec: string;
  instruction: string;
  limits: Record<string, number | undefined>;
  turns: readonly ModelTurn[];
  parsed: ParsedOutput;
  result: AgentResult;
  /** When the agent's program started (epoch ms): events are timed from it, turns by when the gateway saw them. */
  startedAt: number;
}

const NO_USAGE: TurnUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

export function writeExternalTrajectory(input: ExternalTrajectoryInput): string {
  const file = join(input.attemptDir, TRAJECTORY_FILE);
  // Written after the agent stopped: each event carries the time it happened, not the time it is written.
  let clock = input.startedAt;
  const writer = trajectoryWriter(
    file,
    () => clock,
    () => new Date(clock),
  );
  const { turns, parsed } = input;
  const tools = [...new Set([...turns.flatMap((t) => t.toolCalls.map((c) => c.name)), ...parsed.tools.map((t) => t.name)])];
  const system = turns.find((t) => t.system !== undefined)?.system ?? '';
  writer.write({ type: 'start', v: 1, model: input.spec, system, instruction: input.instruction, tools, limits: input.limits });

  const results = resultsOf(turns, parsed.tools);
  turns.forEach((turn, index) => {
    const number = index + 1;
    const arrived = Date.parse(turn.at);
    // A turn is timed when its answer was complete, as the built-in agent's are.
    if (Number.isFinite(arrived)) clock = Math.max(clock, arrived + turn.latencyMs);
    writer.write({
      type: 'turn',
      turn: number,
      // A request whose system prompt is not the first one's (a sub-agent's, a summariser's) says so.
      ...(turn.system !== undefined && turn.system !== system ? { system: turn.system } : {}),
      ...(turn.text ? { text: turn.text } : {}),
      ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
      toolCalls: turn.toolCalls.map((c) => ({ id: c.id, name: c.name, input: abbreviateInput(c.input) })),
      finishReason:
        turn.failure !== undefined
          ? `provider ${turn.failure}${turn.status >= 400 ? ` (http ${turn.status})` : ''}`
          : (turn.finishReason ?? (turn.status >= 400 ? `http ${turn.status}` : '')),
      usage: turn.usage ?? NO_USAGE,
      modelMs: turn.latencyMs,
      ...(turn.model !== undefined ? { model: turn.model } : {}),
    });
    for (const call of turn.toolCalls) {
      const found = results.of(call);
      if (found) writer.write(toolEvent(number, { ...found, id: call.id, name: call.name, input: call.input }));
    }
  });
  const last = turns.length;
  for (const tool of results.unmatched()) writer.write(toolEvent(last, tool));

  const { result } = input;
  clock = Math.max(clock, Date.now());
  writer.write({
    type: 'end',
    stopReason: result.stopReason,
    turns: result.turns ?? turns.length,
    toolCalls: result.toolCalls ?? 0,
    usage: result.usage ?? summed(turns),
    ...(result.timings ? { timings: result.timings } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
    ...(parsed.finalMessage !== undefined ? { summary: abbreviate(parsed.finalMessage) } : {}),
  });
  return file;
}

type Call = ModelTurn['toolCalls'][number];

/**
 * Each call's result: the output the gateway saw sent back for it, and the agent's own report of
 * the tool (by id, or paired in order, see ReportedTool.answers) for whether it failed and, when
 * the gateway saw no result (the agent stopped first), for its output.
 */
function resultsOf(turns: readonly ModelTurn[], reported: readonly ReportedTool[]) {
  const calls = turns.flatMap((t) => t.toolCalls);
  // Each result answers the earliest call still waiting under its id (Gemini's positional ids recur).
  const sent = new Map<Call, AnsweredCall>();
  const waiting = new Map<string, Call[]>();
  for (const turn of turns) {
    for (const answer of turn.toolResults ?? []) {
      const call = waiting.get(answer.id)?.shift();
      if (call) sent.set(call, answer);
    }
    for (const call of turn.toolCalls) waiting.set(call.id, [...(waiting.get(call.id) ?? []), call]);
  }
  const callIds = new Set(calls.map((c) => c.id));
  const byId = new Map<string, ReportedTool>();
  for (const tool of reported) if (tool.id !== undefined && callIds.has(tool.id) && !byId.has(tool.id)) byId.set(tool.id, tool);
  const paired = pairInOrder(
    calls.filter((c) => !byId.has(c.id)),
    reported.filter((t) => t.id === undefined || !callIds.has(t.id)),
  );
  const used = new Set<ReportedTool>();
  return {
    of(call: Call): Omit<ReportedTool, 'name' | 'input'> | undefined {
      const tool = byId.get(call.id) ?? paired.get(call);
      const answer = sent.get(call);
      if (tool) used.add(tool);
      if (!tool && !answer) return undefined;
      const output = answer?.output ?? tool?.output;
      const ok = tool?.ok ?? (answer ? answer.isError !== true : undefined);
      return { ...(output !== undefined ? { output } : {}), ...(ok !== undefined ? { ok } : {}) };
    },
    unmatched: () => reported.filter((t) => !used.has(t)),
  };
}

/**
 * Reports without the wire's call id, paired with the calls of the tools they name, in order: per
 * set of names, only when the reports and the calls are as many (else which is which is a guess).
 */
function pairInOrder(calls: readonly Call[], reports: readonly ReportedTool[]): Map<Call, ReportedTool> {
  const pairs = new Map<Call, ReportedTool>();
  const groups = new Map<string, ReportedTool[]>();
  for (const report of reports) {
    if (report.answers === undefined || report.answers.length === 0) continue;
    const key = JSON.stringify(report.answers);
    groups.set(key, [...(groups.get(key) ?? []), report]);
  }
  for (const group of groups.values()) {
    const names = new Set(group[0]?.answers);
    const mine = calls.filter((c) => names.has(c.name) && !pairs.has(c));
    if (mine.length !== group.length) continue;
    mine.forEach((call, i) => pairs.set(call, group[i] as ReportedTool));
  }
  return pairs;
}

function toolEvent(turn: number, tool: ReportedTool) {
  const output = tool.output ?? '';
  return {
    type: 'tool' as const,
    turn,
    id: tool.id ?? '',
    name: tool.name,
    input: abbreviateInput(tool.input),
    ok: tool.ok ?? true,
    output: abbreviateOutput(output),
    outputChars: output.length,
    // The agent's output says what a tool returned, not how long it took.
    ms: 0,
  };
}

/** The turns' tokens added up: the agent's own count, as the built-in agent's `end` has it (the gateway's is in attempt.json). */
function summed(turns: readonly ModelTurn[]): NonNullable<AgentResult['usage']> {
  const total = { ...NO_USAGE, requests: turns.length };
  for (const turn of turns) {
    const u = turn.usage ?? NO_USAGE;
    total.inputTokens += u.inputTokens;
    total.outputTokens += u.outputTokens;
    total.cacheReadTokens += u.cacheReadTokens;
    total.cacheWriteTokens += u.cacheWriteTokens;
    total.reasoningTokens += u.reasoningTokens;
  }
  return total;
}
