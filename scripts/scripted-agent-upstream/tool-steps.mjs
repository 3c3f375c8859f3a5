/**
 * Protocol-neutral half of a scripted reply (a scripted stand-in for a model, not a model): which
 * text to say and which of the agent's own tools to call for the plan's next step. The protocol
 * modules only read the offered tools and the tool results out of their wire format and write the
 * answer back into it.
 *
 * Tools are chosen by name (Claude Code `Read`/`Write`/`Edit`, Qwen and Gemini
 * `read_file`/`write_file`/`edit`/`replace`, OpenCode `read`/`write`/`edit`) and their arguments are
 * named after the tool's own JSON schema (`file_path`, `absolute_path`, `filePath`, `path`; `old_string`,
 * `oldString`, `old_str`), so one module serves every agent that speaks its protocol.
 */
import { findPlan, nextStep } from './plans.mjs';

/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedRequest} ScriptedRequest */
/** @typedef {import('../scripted-agent-upstream.d.mts').PlanStep} PlanStep */
/** @typedef {{ name: string, params: string[] }} OfferedTool  `params`: the property names of its input schema. */
/** @typedef {{ text: string, call?: { name: string, input: Record<string, unknown> } }} ScriptedTurn */

const READ_TOOLS = ['Read', 'read_file', 'read', 'view_file'];
const WRITE_TOOLS = ['Write', 'write_file', 'write', 'create_file'];
const EDIT_TOOLS = ['Edit', 'edit', 'replace', 'edit_file', 'str_replace_based_edit_tool'];
const PATH_PARAMS = ['file_path', 'absolute_path', 'filePath', 'path'];
const OLD_PARAMS = ['old_string', 'oldString', 'old_str'];
const NEW_PARAMS = ['new_string', 'newString', 'new_str'];

/**
 * The reply to one request: plain text when it offers no tools (titles, summaries, quota probes),
 * is about no example task, or the plan is done; else the next step as a call of an offered tool.
 * @param {ScriptedRequest} request
 * @param {OfferedTool[]} tools
 * @param {number} done tool results already in the conversation (steps carried out)
 * @returns {ScriptedTurn}
 */
export function scriptedTurn(request, tools, done) {
  if (tools.length === 0) return { text: 'OK.' };
  const requestText = JSON.stringify(request.json);
  const plan = findPlan(request.plans, requestText);
  if (!plan) return { text: 'Scripted upstream: this request is about no example task, so there is nothing to do.' };
  const step = nextStep(plan, request.planName, done);
  if (step.kind === 'final') return { text: step.text };
  const call = stepCall(step, tools, workingDirectory(requestText));
  if (!call) {
    return { text: `Scripted upstream: no tool for a ${step.kind} step among the tools offered: ${tools.map((t) => t.name).join(', ')}.` };
  }
  return { text: `${step.kind === 'read' ? 'Reading' : 'Writing'} ${step.path}.`, call };
}

/**
 * @param {Exclude<PlanStep, { kind: 'final' }>} step @param {OfferedTool[]} tools @param {string | undefined} cwd
 * @returns {{ name: string, input: Record<string, unknown> } | undefined}
 */
function stepCall(step, tools, cwd) {
  // Most agents' file tools refuse relative paths; the plan's are relative to the repository.
  const filePath = cwd ? `${cwd.replace(/\/+$/, '')}/${step.path}` : step.path;
  const pick = (names) => names.map((name) => tools.find((tool) => tool.name === name)).find(Boolean);
  const param = (tool, names) => names.find((name) => tool.params.includes(name)) ?? names[0];
  if (step.kind === 'read') {
    const tool = pick(READ_TOOLS);
    return tool && { name: tool.name, input: { [param(tool, PATH_PARAMS)]: filePath } };
  }
  const write = pick(WRITE_TOOLS);
  if (write) return { name: write.name, input: { [param(write, PATH_PARAMS)]: filePath, content: step.content } };
  const edit = pick(EDIT_TOOLS);
  if (!edit) return undefined;
  const input = { [param(edit, PATH_PARAMS)]: filePath, [param(edit, OLD_PARAMS)]: step.before, [param(edit, NEW_PARAMS)]: step.content };
  if (edit.params.includes('command')) input.command = 'str_replace';
  return { name: edit.name, input };
}

/**
 * The agent's working directory as its prompt states it: Claude Code "Primary working directory:
 * /p", OpenCode "Working directory: /p", Qwen and Gemini "I'm currently working in the directory:
 * /p", Codex "<cwd>/p</cwd>". Read from the request's JSON text (so no raw newlines or quotes).
 * @param {string} requestText
 */
export function workingDirectory(requestText) {
  const patterns = [/working directory:\s*(\/[^\s"\\<>]*)/i, /working in the directory:?\s*(\/[^\s"\\<>]*)/i, /<cwd>(\/[^<"\\]*)<\/cwd>/];
  for (const pattern of patterns) {
    const match = pattern.exec(requestText);
    if (match?.[1]) return match[1].replace(/[.,;:]+$/, '');
  }
  return undefined;
}

/** Property names of a JSON schema's top-level object, for naming tool arguments. */
export function schemaParams(schema) {
  const properties = schema && typeof schema === 'object' ? schema.properties : undefined;
  return properties && typeof properties === 'object' ? Object.keys(properties) : [];
}
