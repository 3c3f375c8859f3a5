import { abbreviate, abbreviateInput, abbreviateOutput, trajectoryWriter, TRAJECTORY_FILE, type TurnUsage } from '../builtin/trajectory.js';
import type { ModelTurn } from '../../gateway/index.js';
import type { AgentResult } from '../../types/index.js';
import type { ParsedOutput, ReportedTool } from './outputs/index.js';
import { join } from 'node:path';

/**
 * An external agent's trajectory.jsonl, in the built-in agent's format (builtin/trajectory.ts) so
 * every reader renders it the same way. Turns come from the gateway, which saw every model
 * exchange whatever the agent; tool results come from the agent's own output where it reports
 * them, matched to the turn that asked for them by tool-call id. Tools the output reports that no
 * metered turn asked for (an agent whose ids differ from the wire's, or no turns read) follow the
 * last turn, so nothing the agent said it did is dropped. Written once, after the agent stopped.
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
  writer.write({ type: 'start', v: 1, model: input.spec, system: '', instruction: input.instruction, tools, limits: input.limits });

  const reported = new Map<string, ReportedTool>();
  for (const tool of parsed.tools) if (tool.id !== undefined) reported.set(tool.id, tool);
  const used = new Set<ReportedTool>();
  turns.forEach((turn, index) => {
    const number = index + 1;
    const arrived = Date.parse(turn.at);
    // A turn is timed when its answer was complete, as the built-in agent's are.
    if (Number.isFinite(arrived)) clock = Math.max(clock, arrived + turn.latencyMs);
    writer.write({
      type: 'turn',
      turn: number,
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
      const tool = reported.get(call.id);
      if (!tool) continue;
      used.add(tool);
      writer.write(toolEvent(number, { ...tool, name: call.name, input: call.input }));
    }
  });
  const last = turns.length;
  for (const tool of parsed.tools) if (!used.has(tool)) writer.write(toolEvent(last, tool));

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
