import { parseClaudeMessages } from './claude-stream-json.js';
import { emptyOutput, isRecord, jsonLines, num, parseJson, str, type ParsedOutput, type ReportedTool } from './types.js';

/**
 * Gemini CLI's `--output-format json`: one (pretty-printed) object `{session_id, response, stats,
 * error}` where `stats.models.<name>.api.totalRequests` counts the model calls and
 * `stats.tools.totalCalls` the tool calls. Qwen Code, a Gemini CLI fork, prints under the same flag
 * a JSON array of Claude-style messages instead; and `--output-format stream-json` of Gemini CLI
 * gives one event per line (`init`, `message`, `tool_use`, `tool_result`, `result`). All three are
 * read here, whichever the stdout turns out to hold.
 */
export function parseGeminiJson(stdout: string): ParsedOutput {
  const whole = parseJson(stdout.trim()) ?? parseJson(lastJsonBlock(stdout));
  if (Array.isArray(whole)) return parseClaudeMessages(whole);
  // A stream's events all have a `type`; the single object never does.
  if (isRecord(whole) && !('type' in whole) && ('response' in whole || 'stats' in whole || 'error' in whole)) return fromObject(whole);
  const lines = jsonLines(stdout);
  if (lines.some((l) => l.type === 'assistant' || (l.type === 'result' && 'num_turns' in l))) return parseClaudeMessages(lines);
  return fromStream(lines);
}

function fromObject(output: Record<string, unknown>): ParsedOutput {
  const parsed = emptyOutput();
  const response = str(output.response);
  if (response !== undefined) parsed.finalMessage = response;
  if (isRecord(output.error)) parsed.error = str(output.error.message) ?? 'the agent reported an error';
  const models = isRecord(output.stats) && isRecord(output.stats.models) ? Object.values(output.stats.models) : [];
  const requests = models.reduce<number>((sum, m) => sum + ((isRecord(m) && isRecord(m.api) ? num(m.api.totalRequests) : undefined) ?? 0), 0);
  if (requests > 0) parsed.turns = requests;
  return parsed;
}

function fromStream(events: Array<Record<string, unknown>>): ParsedOutput {
  const parsed = emptyOutput();
  const byId = new Map<string, ReportedTool>();
  let text = '';
  for (const event of events) {
    if (event.type === 'message' && event.role === 'assistant' && typeof event.content === 'string') {
      text = event.delta === true ? text + event.content : event.content;
    } else if (event.type === 'tool_use' && typeof event.tool_name === 'string') {
      const id = str(event.tool_id);
      const tool: ReportedTool = { ...(id !== undefined ? { id } : {}), name: event.tool_name, input: event.parameters };
      parsed.tools.push(tool);
      if (id !== undefined) byId.set(id, tool);
      const command = isRecord(event.parameters) ? str(event.parameters.command) : undefined;
      if (event.tool_name === 'run_shell_command' && command !== undefined) parsed.commands.push({ command, ...(id !== undefined ? { toolId: id } : {}) });
    } else if (event.type === 'tool_result') {
      const tool = byId.get(str(event.tool_id) ?? '');
      if (tool) {
        tool.output = str(event.output) ?? (isRecord(event.error) ? str(event.error.message) : undefined) ?? '';
        tool.ok = event.status !== 'error';
      }
    } else if (event.type === 'result') {
      if (event.status === 'error') parsed.error = (isRecord(event.error) ? str(event.error.message) : undefined) ?? 'the agent reported an error';
      const stats = isRecord(event.stats) ? event.stats : undefined;
      const turns = stats ? (num(stats.turns) ?? num(stats.total_requests)) : undefined;
      if (turns !== undefined) parsed.turns = turns;
    }
  }
  if (text.trim() !== '') parsed.finalMessage = text.trim();
  return parsed;
}

/** The last `{` that starts a line, to the last `}`: the pretty-printed object after a banner line. */
function lastJsonBlock(stdout: string): string {
  const begin = stdout.lastIndexOf('\n{') + 1;
  const end = stdout.lastIndexOf('}');
  return end > begin ? stdout.slice(begin, end + 1) : '';
}
