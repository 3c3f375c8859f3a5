/**
 * Anthropic Messages for the scripted upstream (a scripted stand-in for a model, not a model), as
 * Claude Code speaks it: `POST /v1/messages`, streamed as SSE when `stream: true`, else one JSON
 * message. Each reply is the plan's next step as one `tool_use` block on the tools the request
 * offers (Claude Code's `Read`, `Write`, `Edit`; any agent with lower-case `read_file`/`write_file`
 * style names works too), or text that ends the turn.
 *
 * Claude Code also sends side requests with no tools or with a different (small) model: a
 * session title, a topic check, a quota probe with `max_tokens: 1`. They get a short plain answer
 * and never advance the plan, since the step is counted from tool results, not from requests.
 * `POST /v1/messages/count_tokens` gets an estimate.
 */
import { estimateTokens } from '../scripted-agent-upstream.mjs';
import { schemaParams, scriptedTurn } from './tool-steps.mjs';

/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedRequest} ScriptedRequest */
/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedReply} ScriptedReply */
/** @typedef {{ type: 'text', text: string } | { type: 'tool_use', id: string, name: string, input: Record<string, unknown> }} Block */

/** @param {ScriptedRequest} request @returns {ScriptedReply} */
export function respond(request) {
  const { json } = request;
  // Token counting (Claude Code asks before some large inputs): the same estimate usage reports.
  if (request.path.endsWith('/count_tokens')) return { status: 200, body: { input_tokens: estimateTokens(JSON.stringify(json)) } };
  const model = typeof json.model === 'string' ? json.model : 'claude-scripted';
  const done = toolResultCount(json.messages);
  const turn = scriptedTurn(request, offeredTools(json.tools), done);
  /** @type {Block[]} */
  const content = [{ type: 'text', text: turn.text }];
  // Deterministic ids, so two runs of one plan send byte-identical conversations back.
  if (turn.call) content.push({ type: 'tool_use', id: `toolu_scripted_${done}`, ...turn.call });
  const id = `msg_scripted_${done}_${turn.call ? 'tool' : 'text'}`;
  const stopReason = turn.call ? 'tool_use' : 'end_turn';
  const usage = {
    input_tokens: estimateTokens(JSON.stringify(json)),
    output_tokens: estimateTokens(JSON.stringify(content)),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  if (json.stream !== true) {
    return { status: 200, body: { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage } };
  }
  return { status: 200, events: streamEvents({ id, model, content, stopReason, usage }) };
}

/** Anthropic tools: `{ name, input_schema }`; server tools (web search, …) have no schema and are skipped. */
function offeredTools(tools) {
  if (!Array.isArray(tools)) return [];
  return tools
    .filter((tool) => tool && typeof tool === 'object' && typeof tool.name === 'string')
    .map((tool) => ({ name: tool.name, params: schemaParams(tool.input_schema) }));
}

/** Tool results already in the conversation: how many plan steps the agent has carried out. */
function toolResultCount(messages) {
  if (!Array.isArray(messages)) return 0;
  let count = 0;
  for (const message of messages) {
    if (message?.role !== 'user' || !Array.isArray(message.content)) continue;
    count += message.content.filter((block) => block?.type === 'tool_result').length;
  }
  return count;
}

/** The SSE events of one message, in the order the Anthropic SDK's stream reader expects. */
function streamEvents({ id, model, content, stopReason, usage }) {
  const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event('message_start', {
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } }));
    } else {
      events.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
      events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }));
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  events.push(event('message_stop', {}));
  return events;
}
