/**
 * OpenAI Responses API (POST /v1/responses) for the scripted agent upstream: Codex CLI, and any
 * agent built on an OpenAI SDK's Responses client (OpenCode's `openai` provider). Answers with
 * real Responses event shapes (`response.created` … `response.completed`, each with a
 * `sequence_number`) when the request asks `stream: true`, else one `response` object.
 *
 * The next plan step becomes a call of the agent's own tools, picked by the names the request
 * offers (top-level `tools`, namespaces inside them, and Codex's `additional_tools` input items):
 *   Codex:    read → `exec_command {cmd}` (or `shell_command {command}`, `shell {command: argv}`);
 *             write → `apply_patch` (freeform `custom` tool or `function {input}`), else a heredoc
 *             through the shell tool; in code mode (only a freeform `exec` tool running
 *             JavaScript), both become `tools.exec_command(…)` / `tools.apply_patch(…)` calls.
 *   OpenCode: read → `read {filePath}`; write → `apply_patch {patchText}` (what it offers GPT
 *             models), else `write {filePath, content}`, else `edit`
 *             `{filePath, oldString, newString}`, else `bash {command}` (absolute paths: taken
 *             from the request's "Working directory:" / `<cwd>` line).
 * Tool results already in the conversation (`function_call_output`, `custom_tool_call_output`)
 * count the steps done. A request offering none of these tools is answered in plain text naming the
 * tools it offered, so a recording shows why nothing happened.
 */
import { estimateTokens } from '../scripted-agent-upstream.mjs';
import { findPlan, nextStep } from './plans.mjs';

/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedRequest} ScriptedRequest */
/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedReply} ScriptedReply */
/** @typedef {import('../scripted-agent-upstream.d.mts').PlanStep} PlanStep */

const TOOL_RESULT_TYPES = new Set(['function_call_output', 'custom_tool_call_output']);

/** @param {ScriptedRequest} request @returns {ScriptedReply} */
export function respond(request) {
  const body = request.json;
  const model = typeof body.model === 'string' ? body.model : 'scripted';
  const input = Array.isArray(body.input) ? body.input : typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : [];
  const tools = offeredTools(body.tools, input);
  const requestText = JSON.stringify(body);
  const plan = findPlan(request.plans, requestText);
  // Ids derive from the step alone (not paths or dates), so two runs send the same ids back.
  const seq = input.filter((item) => TOOL_RESULT_TYPES.has(item?.type)).length;
  const id = `resp_scripted_${seq}`;

  /** @type {object[]} */
  let output;
  if (tools.size === 0 || !plan) {
    output = [
      message(id, tools.size === 0 ? 'Scripted upstream: nothing to do for this request.' : 'Scripted upstream: no bundled task matches this request.'),
    ];
  } else {
    const step = nextStep(plan, request.planName, seq);
    output = stepOutput(step, tools, workingDirectory(requestText), `${id}_0`);
  }
  const usage = {
    input_tokens: estimateTokens(requestText),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: estimateTokens(JSON.stringify(output)),
    output_tokens_details: { reasoning_tokens: 0 },
  };
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  const response = {
    id,
    object: 'response',
    created_at: 1700000000,
    status: 'completed',
    model,
    output,
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    usage,
  };
  if (body.stream === true) return { status: 200, events: streamEvents(response) };
  return { status: 200, body: response };
}

/**
 * Tool name → its definition, over top-level tools, namespaced tools and `additional_tools` items.
 * @returns {Map<string, Record<string, unknown>>}
 */
function offeredTools(tools, input) {
  const found = new Map();
  const visit = (list) => {
    for (const tool of Array.isArray(list) ? list : []) {
      if (!tool || typeof tool !== 'object') continue;
      if (Array.isArray(tool.tools)) visit(tool.tools);
      else if (typeof tool.name === 'string') found.set(tool.name, tool);
    }
  };
  visit(tools);
  for (const item of input) if (item?.type === 'additional_tools') visit(item.tools);
  return found;
}

/** The agent's working directory as its request states it (Codex `<cwd>`, OpenCode "Working directory:"). */
function workingDirectory(requestText) {
  const match = /<cwd>([^<]+)<\/cwd>/.exec(requestText) ?? /Working directory: ([^\\\n"]+)/.exec(requestText);
  return match?.[1]?.trim();
}

/** @param {PlanStep} step @param {Map<string, Record<string, unknown>>} tools @param {string | undefined} cwd */
function stepOutput(step, tools, cwd, itemId) {
  if (step.kind === 'final') return [message(itemId, step.text)];
  const abs = cwd ? `${cwd.replace(/\/$/, '')}/${step.path}` : step.path;
  const shell = shellCall(tools);
  if (step.kind === 'read') {
    if (tools.has('read')) return [functionCall(itemId, 'read', { filePath: abs })];
    if (shell) return [shell(`cat ${quote(step.path)}`)];
  } else {
    const patch = tools.get('apply_patch');
    if (patch?.type === 'custom') return [customCall(itemId, 'apply_patch', applyPatch(step))];
    // Codex's function flavour takes `input`; OpenCode's (offered to GPT models instead of edit/write) `patchText`.
    if (patch) return [functionCall(itemId, 'apply_patch', { [patchArgument(patch)]: applyPatch(step) })];
    if (tools.has('write')) return [functionCall(itemId, 'write', { filePath: abs, content: step.content })];
    if (tools.has('edit')) return [functionCall(itemId, 'edit', { filePath: abs, oldString: step.before, newString: step.content })];
    if (shell) return [shell(heredoc(step.path, step.content))];
  }
  // Codex's code mode (its gpt-5.6/6.x models): one freeform `exec` tool running JavaScript that
  // calls the real tools as `tools.<name>(…)`.
  if (tools.get('exec')?.type === 'custom') {
    const code =
      step.kind === 'read'
        ? `const r = await tools.exec_command({ cmd: ${JSON.stringify(`cat ${quote(step.path)}`)} });\ntext(r.output);\n`
        : `text(await tools.apply_patch(${JSON.stringify(applyPatch(step))}));\n`;
    return [customCall(itemId, 'exec', code)];
  }
  return [message(itemId, `Scripted upstream: none of the offered tools fits a ${step.kind} step (offered: ${[...tools.keys()].join(', ')}).`)];

  /** A call of whichever shell tool is offered, or undefined. */
  function shellCall(offered) {
    if (offered.has('exec_command')) return (cmd) => functionCall(itemId, 'exec_command', { cmd });
    if (offered.has('shell_command')) return (command) => functionCall(itemId, 'shell_command', { command });
    if (offered.has('shell')) return (command) => functionCall(itemId, 'shell', { command: ['bash', '-lc', command] });
    if (offered.has('bash')) return (command) => functionCall(itemId, 'bash', { command, description: 'Run a command' });
    return undefined;
  }
}

/** The one string property of a function-style `apply_patch` tool. */
function patchArgument(tool) {
  const properties = /** @type {{ properties?: Record<string, unknown> }} */ (tool.parameters ?? {}).properties ?? {};
  return Object.keys(properties).find((name) => name === 'patchText' || name === 'patch') ?? 'input';
}

/** A Codex patch replacing the whole file: every old line removed, every new line added. */
function applyPatch(step) {
  const lines = (text) => (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const hunk = [...lines(step.before).map((l) => `-${l}`), ...lines(step.content).map((l) => `+${l}`)];
  return ['*** Begin Patch', `*** Update File: ${step.path}`, '@@', ...hunk, '*** End Patch', ''].join('\n');
}

function heredoc(path, content) {
  let marker = 'CRUCIBLE_EOF';
  while (content.includes(marker)) marker += '_';
  return `cat > ${quote(path)} <<'${marker}'\n${content.endsWith('\n') ? content : `${content}\n`}${marker}`;
}

function quote(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function message(id, text) {
  return { type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

function functionCall(id, name, args) {
  return { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, status: 'completed', name, arguments: JSON.stringify(args) };
}

function customCall(id, name, input) {
  return { type: 'custom_tool_call', id: `ctc_${id}`, call_id: `call_${id}`, status: 'completed', name, input };
}

/** The Responses streaming events for `response`, in the order the OpenAI API sends them. */
function streamEvents(response) {
  /** @type {string[]} */
  const events = [];
  let sequence = 0;
  const emit = (type, data) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  response.output.forEach((item, outputIndex) => {
    if (item.type === 'message') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      const part = item.content[0];
      emit('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { ...part, text: '' } });
      emit('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta: part.text, logprobs: [] });
      emit('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text: part.text, logprobs: [] });
      emit('response.content_part.done', { item_id: item.id, output_index: outputIndex, content_index: 0, part });
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      emit('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: item.arguments });
      emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, arguments: item.arguments });
    } else {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', input: '' } });
      emit('response.custom_tool_call_input.delta', { item_id: item.id, output_index: outputIndex, delta: item.input });
      emit('response.custom_tool_call_input.done', { item_id: item.id, output_index: outputIndex, input: item.input });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  });
  emit('response.completed', { response });
  return events;
}
