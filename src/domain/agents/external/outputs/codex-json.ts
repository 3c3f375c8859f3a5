import { emptyOutput, isRecord, jsonLines, num, str, type ParsedOutput, type ReportedTool } from './types.js';

/** The model's tools a command_execution or file_change item reports the call of (codex-rs's tool specs). */
const SHELL_CALLS = ['exec_command', 'shell', 'shell_command', 'local_shell', 'container.exec'];
const PATCH_CALLS = ['apply_patch'];

/**
 * `codex exec --json`: one event per line (codex-rs/exec/src/exec_events.rs): `thread.started`,
 * `turn.started`, `turn.completed` (with usage), `turn.failed`, `error`, and `item.started` /
 * `item.updated` / `item.completed` carrying an `item` whose `type` is `agent_message` (`text`),
 * `reasoning`, `command_execution` (`command`, `aggregated_output`, `exit_code`, `status`),
 * `file_change` (`changes`), `mcp_tool_call`, `web_search` or `todo_list`. Only completed items
 * count, except a command still running when the agent was stopped.
 */
export function parseCodexJson(stdout: string): ParsedOutput {
  const parsed = emptyOutput();
  const items = new Map<string, Record<string, unknown>>();
  const completed = new Set<string>();
  let turns = 0;
  let failed: string | undefined;
  let lastError: string | undefined;
  for (const event of jsonLines(stdout)) {
    const type = str(event.type);
    if (type === 'turn.completed') turns++;
    else if (type === 'turn.failed') failed = (isRecord(event.error) ? str(event.error.message) : undefined) ?? 'turn failed';
    else if (type === 'error') lastError = str(event.message) ?? 'error';
    else if (type?.startsWith('item.') && isRecord(event.item)) {
      const id = str(event.item.id) ?? `item_${items.size}`;
      // Keep first-seen order: a Map re-set does not move the key.
      items.set(id, event.item);
      if (type === 'item.completed') completed.add(id);
    }
  }
  for (const [id, item] of items) {
    const done = completed.has(id);
    switch (item.type) {
      case 'agent_message':
        if (done && typeof item.text === 'string') parsed.finalMessage = item.text;
        break;
      case 'command_execution': {
        const command = str(item.command);
        if (command === undefined) break;
        const exitCode = num(item.exit_code);
        parsed.commands.push({ command, exitCode: exitCode ?? null, toolId: id });
        const tool: ReportedTool = { id, name: 'command_execution', input: { command }, output: str(item.aggregated_output) ?? '', answers: SHELL_CALLS };
        if (done) tool.ok = exitCode === 0;
        parsed.tools.push(tool);
        break;
      }
      case 'file_change':
        parsed.tools.push({
          id,
          name: 'file_change',
          input: { changes: item.changes },
          answers: PATCH_CALLS,
          ...(done ? { ok: item.status !== 'failed' } : {}),
        });
        break;
      case 'mcp_tool_call':
        parsed.tools.push({
          id,
          name: `${str(item.server) ?? 'mcp'}.${str(item.tool) ?? 'tool'}`,
          input: item.arguments,
          // Codex names an MCP tool to the model `<server>__<tool>`.
          answers: [`${str(item.server) ?? 'mcp'}__${str(item.tool) ?? 'tool'}`],
          ...(done ? { ok: item.status !== 'failed' } : {}),
        });
        break;
      case 'web_search':
        parsed.tools.push({ id, name: 'web_search', input: { query: item.query } });
        break;
      default:
        break;
    }
  }
  if (turns > 0) parsed.turns = turns;
  // `error` events also report retries on the way ("Reconnecting... 2/5"); the failed turn is the verdict.
  const error = failed ?? lastError;
  if (error !== undefined) parsed.error = error;
  return parsed;
}
