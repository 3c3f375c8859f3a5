/**
 * OpenAI Chat Completions for the scripted upstream (a scripted stand-in for a model, not a model),
 * as Qwen Code (and any OpenAI-compatible agent) speaks it: `POST /v1/chat/completions`, streamed as
 * `chat.completion.chunk` SSE events ending in `data: [DONE]` when `stream: true`, else one
 * `chat.completion`. Each reply is the plan's next step as one function call on the tools the
 * request offers, chosen by tool name and argument names from the tool's own schema (see
 * tool-steps.mjs), or text that ends the turn.
 *
 * Side requests with no tools (Qwen's session title, next-speaker check, summaries) get a short
 * plain answer and never advance the plan, since the step is counted from `tool` messages.
 */
import { estimateTokens } from '../scripted-agent-upstream.mjs';
import { schemaParams, scriptedTurn } from './tool-steps.mjs';

/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedRequest} ScriptedRequest */
/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedReply} ScriptedReply */

/** Fixed, so that two runs of one plan give byte-identical responses. */
const CREATED = 1700000000;

/** @param {ScriptedRequest} request @returns {ScriptedReply} */
export function respond(request) {
  const { json } = request;
  const model = typeof json.model === 'string' ? json.model : 'scripted';
  const done = toolResultCount(json.messages);
  const turn = scriptedTurn(request, offeredTools(json.tools), done);
  const toolCalls = turn.call
    ? [{ id: `call_scripted_${done}`, type: 'function', function: { name: turn.call.name, arguments: JSON.stringify(turn.call.input) } }]
    : undefined;
  const id = `chatcmpl-scripted-${done}-${toolCalls ? 'tool' : 'text'}`;
  const finishReason = toolCalls ? 'tool_calls' : 'stop';
  const promptTokens = estimateTokens(JSON.stringify(json));
  const completionTokens = estimateTokens(turn.text + (toolCalls ? JSON.stringify(toolCalls) : ''));
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  if (json.stream !== true) {
    const message = { role: 'assistant', content: turn.text, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    return {
      status: 200,
      body: { id, object: 'chat.completion', created: CREATED, model, choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }], usage },
    };
  }
  const chunk = (choices, extra = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model, choices, ...extra })}\n\n`;
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: turn.text }, finish_reason: null }]),
  ];
  if (toolCalls) {
    // Streamed the way OpenAI does: id, type and name first, then the arguments.
    const [call] = toolCalls;
    events.push(
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] },
          finish_reason: null,
        },
      ]),
    );
    events.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }, finish_reason: null }]));
  }
  events.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
  const streamOptions = json.stream_options;
  if (streamOptions && typeof streamOptions === 'object' && streamOptions.include_usage === true) events.push(chunk([], { usage }));
  events.push('data: [DONE]\n\n');
  return { status: 200, events };
}

/** Chat tools: `{ type: 'function', function: { name, parameters } }`. */
function offeredTools(tools) {
  if (!Array.isArray(tools)) return [];
  return tools
    .map((tool) => (tool && typeof tool === 'object' ? tool.function : undefined))
    .filter((fn) => fn && typeof fn === 'object' && typeof fn.name === 'string')
    .map((fn) => ({ name: fn.name, params: schemaParams(fn.parameters) }));
}

/** `tool` messages already in the conversation: how many plan steps the agent has carried out. */
function toolResultCount(messages) {
  return Array.isArray(messages) ? messages.filter((message) => message?.role === 'tool').length : 0;
}
