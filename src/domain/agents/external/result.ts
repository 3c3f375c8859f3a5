import { cutOutput } from '../../../core/format/index.js';
import type { ModelTurn } from '../../../infra/gateway/index.js';
import type { ExecResult } from '../../../infra/sandbox/index.js';
import type { AgentResult } from '../../../core/types/index.js';
import type { ParsedOutput } from './outputs/index.js';

/** What is kept of stderr for the result's error. */
const STDERR_TAIL_CHARS = 800;

/**
 * The attempt's result from how the agent's program ended (the executor's report) and what its
 * output says. Whose fault a failure is comes from the harness's evidence alone — the exit status,
 * the sandbox's report, and (applied by the engine) the gateway's view of the provider; the agent's
 * own failure message is only the text that explains it.
 */
export function externalAgentResult(exec: ExecResult, parsed: ParsedOutput, aborted: boolean, metered: readonly ModelTurn[]): AgentResult {
  // The gateway's count means the same for every agent (Codex calls a whole exec one turn); the
  // agent's own words count only when the gateway saw nothing.
  // A request the provider failed or refused, one the gateway refused, or one whose answer never
  // completed (its partial tool calls included) is no turn.
  const answered = metered.filter(isAnswered);
  const counts =
    metered.length > 0
      ? { turns: answered.length, toolCalls: answered.reduce((sum, turn) => sum + turn.toolCalls.length, 0) }
      : { turns: parsed.turns ?? 0, toolCalls: parsed.tools.length };
  if (exec.limitExceeded)
    return { ...counts, stopReason: 'resource_exceeded', limit: exec.limitExceeded, error: `the agent hit the sandbox's ${exec.limitExceeded} limit` };
  if (exec.timedOut || aborted) return { ...counts, stopReason: 'timeout', error: 'the agent was stopped before it finished' };
  // The sandbox could not start the program (its supervisor's out-of-band report of its own spawn's
  // errno): the machine's fault. An agent that prints "command not found" and exits 127 is not that.
  if (exec.notStarted !== undefined) {
    return { stopReason: 'error', errorKind: 'harness', error: `the sandbox could not start the agent's program (${exec.notStarted}): ${tailOf(exec.stderr)}` };
  }
  if (exec.exitCode === 0) return { ...counts, stopReason: 'end_turn' };
  const why = exec.exitCode === null ? `killed by ${exec.signal ?? 'a signal'}` : `exit ${exec.exitCode}`;
  // The agent's own account of its failure (Codex's `turn.failed`, Claude Code's error result) says
  // what went wrong; stderr often holds only a banner ("Reading additional input from stdin...").
  const own = parsed.error?.trim();
  const text = own ? tailOf(own) : tailOf(exec.stderr) || tailOf(exec.stdout);
  return { ...counts, stopReason: 'error', error: `the agent failed (${why})${text ? `: ${text}` : ''}` };
}

function isAnswered(turn: ModelTurn): boolean {
  return turn.status >= 200 && turn.status < 300 && turn.failure === undefined && turn.unfinished !== true;
}

/** The end of the program's output, and its error lines wherever they are (a stack's `Error:` line sits above its frames). */
function tailOf(text: string): string {
  return cutOutput(text.trim(), { maxChars: STDERR_TAIL_CHARS, headLines: 0, tailLines: 5 });
}
