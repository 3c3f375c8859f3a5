import { emptyOutput, isRecord, jsonLines, num, str, type ParsedOutput, type ReportedTool } from './types.js';

/** Shell tools in this format: Claude Code's `Bash`; Qwen Code's stream-json has Claude's shapes and Gemini's tool names. */
const SHELL_TOOLS = new Set(['Bash', 'run_shell_command']);

/**
 * Claude Code's `--output-format stream-json --verbose`: one JSON message per line, `system`
 * (init), `assistant` (a model message whose content has `text` and `tool_use` blocks), `user`
 * (the `tool_result` blocks sent back) and a final `result` with `result` (the final message),
 * `num_turns` and `is_error`. Qwen Code's `--output-format json` prints the same messages as one
 * JSON array, which parseClaudeMessages reads too.
 */
export function parseClaudeStreamJson(stdout: string): ParsedOutput {
  return parseClaudeMessages(jsonLines(stdout));
}

export function parseClaudeMessages(messages: readonly unknown[]): ParsedOutput {
  const parsed = emptyOutput();
  const byId = new Map<string, ReportedTool>();
  let lastText: string | undefined;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const content = isRecord(message.message) && Array.isArray(message.message.content) ? message.message.content : [];
    if (message.type === 'assistant') {
      const texts: string[] = [];
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        if (block.type === 'tool_use' && typeof block.name === 'string') {
          const id = str(block.id);
          const tool: ReportedTool = { ...(id !== undefined ? { id } : {}), name: block.name, input: block.input };
          parsed.tools.push(tool);
          if (id !== undefined) byId.set(id, tool);
          const command = isRecord(block.input) ? str(block.input.command) : undefined;
          if (SHELL_TOOLS.has(String(block.name)) && command !== undefined) parsed.commands.push({ command, ...(id !== undefined ? { toolId: id } : {}) });
        }
      }
      if (texts.length > 0) lastText = texts.join('\n');
    } else if (message.type === 'user') {
      for (const block of content) {
        if (!isRecord(block) || block.type !== 'tool_result') continue;
        const tool = byId.get(str(block.tool_use_id) ?? '');
        if (!tool) continue;
        tool.output = resultText(block.content);
        tool.ok = block.is_error !== true;
      }
    } else if (message.type === 'result') {
      const result = str(message.result);
      if (result !== undefined) parsed.finalMessage = result;
      const turns = num(message.num_turns);
      if (turns !== undefined) parsed.turns = turns;
      if (message.is_error === true) parsed.error = result ?? str(message.subtype) ?? 'the agent reported an error';
    }
  }
  if (parsed.finalMessage === undefined && lastText !== undefined) parsed.finalMessage = lastText;
  // A Bash result tells whether the command failed, not its exit code.
  for (const command of parsed.commands) {
    const tool = command.toolId === undefined ? undefined : byId.get(command.toolId);
    if (tool?.ok === false) command.exitCode = null;
  }
  return parsed;
}

/** A tool_result's content: a string, or text blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.flatMap((block) => (isRecord(block) && typeof block.text === 'string' ? [block.text] : [])).join('\n');
  }
  return '';
}
