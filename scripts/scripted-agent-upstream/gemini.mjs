/**
 * Gemini API (generateContent / streamGenerateContent?alt=sse) for the scripted agent upstream,
 * shaped for Gemini CLI (and its fork Qwen Code when it speaks Gemini): the next plan step becomes
 * a `functionCall` on the agent's own file tools, found by name in the request's
 * `tools[].functionDeclarations`: `read_file`, `write_file`, `replace`. Their path argument is
 * absolute (`file_path`, older versions `absolute_path`), so the working directory is taken from
 * the environment context Gemini CLI puts in the conversation. A scripted stand-in, not a model.
 */
import { randomUUID } from 'node:crypto';
import { estimateTokens } from '../scripted-agent-upstream.mjs';
import { findPlan, nextStep } from './plans.mjs';

/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedRequest} ScriptedRequest */
/** @typedef {import('../scripted-agent-upstream.d.mts').ScriptedReply} ScriptedReply */
/** @typedef {import('../scripted-agent-upstream.d.mts').PlanStep} PlanStep */

const MODEL_VERSION = 'scripted-gemini';

/** @param {ScriptedRequest} request @returns {ScriptedReply} */
export function respond(request) {
  const model = /\/models\/([^/:]+):/.exec(request.path)?.[1] ?? MODEL_VERSION;
  const stream = /:streamGenerateContent$/.test(request.path);
  const parts = partsFor(request);
  const candidate = {
    content: { role: 'model', parts },
    finishReason: 'STOP',
    index: 0,
  };
  const inputTokens = estimateTokens(JSON.stringify(request.json.contents ?? []) + JSON.stringify(request.json.systemInstruction ?? ''));
  const outputTokens = estimateTokens(JSON.stringify(parts));
  const body = {
    candidates: [candidate],
    usageMetadata: { promptTokenCount: inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens },
    modelVersion: model,
    responseId: randomUUID().replaceAll('-', '').slice(0, 22),
  };
  if (!stream) return { status: 200, body };
  // Gemini's SSE: one `data:` JSON chunk per event, no event names, no [DONE]; the last chunk
  // carries finishReason and usage. One chunk is enough for the agent's SDK (@google/genai).
  return { status: 200, events: [`data: ${JSON.stringify(body)}\r\n\r\n`] };
}

/** @param {ScriptedRequest} request */
function partsFor(request) {
  const declarations = toolDeclarations(request.json);
  // Side requests (next-speaker checks, routing, summaries) ask for JSON with no tools: answer
  // something their schema-less parsers accept rather than prose.
  const config = /** @type {Record<string, unknown>} */ (request.json.generationConfig ?? {});
  if (declarations.length === 0 && config.responseMimeType === 'application/json') return [{ text: jsonAnswer(request.json) }];
  if (declarations.length === 0) return [{ text: 'Scripted upstream: no tools were offered, so there is nothing to do.' }];
  // The conversation's own text rather than the JSON body: findPlan's word comparison trips over
  // JSON escapes next to punctuation (`\"IIII\";` in py-roman's instruction).
  const plan = findPlan(request.plans, conversationText(request.json));
  if (!plan) return [{ text: 'Scripted upstream: this request is about no bundled example task.' }];
  const step = nextStep(plan, request.planName, countToolResults(request.json));
  return toolPart(step, declarations, workingDirectory(request.json));
}

/** @param {PlanStep} step @param {Array<{ name: string, parameters: Record<string, unknown> }>} declarations @param {string | undefined} cwd */
function toolPart(step, declarations, cwd) {
  if (step.kind === 'final') return [{ text: step.text }];
  const byName = (name) => declarations.find((d) => d.name === name);
  const read = byName('read_file');
  const write = byName('write_file');
  const replace = byName('replace') ?? byName('edit');
  const offered = declarations.map((d) => d.name).join(', ');
  if (step.kind === 'read') {
    if (!read) return [{ text: `Scripted upstream: no read_file tool among the offered tools (${offered}).` }];
    return [call(read.name, { [pathArg(read)]: absolute(cwd, step.path) })];
  }
  if (write) return [call(write.name, { [pathArg(write)]: absolute(cwd, step.path), content: step.content })];
  if (replace) {
    // Gemini CLI's `replace` also requires an `instruction` (what the edit is for).
    const instruction = 'instruction' in (replace.parameters.properties ?? {}) ? { instruction: `Scripted edit of ${step.path}.` } : {};
    return [call(replace.name, { [pathArg(replace)]: absolute(cwd, step.path), ...instruction, old_string: step.before, new_string: step.content })];
  }
  return [{ text: `Scripted upstream: no write_file or replace tool among the offered tools (${offered}).` }];
}

function call(name, args) {
  return { functionCall: { name, args } };
}

/** The declaration's path parameter: `file_path` today, `absolute_path` in older Gemini CLI. */
function pathArg(declaration) {
  const properties = /** @type {Record<string, unknown>} */ (declaration.parameters.properties ?? {});
  return ['file_path', 'absolute_path', 'path'].find((name) => name in properties) ?? 'file_path';
}

function absolute(cwd, path) {
  return cwd ? `${cwd.replace(/\/+$/, '')}/${path}` : path;
}

/** @param {Record<string, unknown>} json */
function toolDeclarations(json) {
  const tools = Array.isArray(json.tools) ? json.tools : [];
  return tools.flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((d) => ({ name: String(d.name), parameters: d.parametersJsonSchema ?? d.parameters ?? {} })),
  );
}

/** Every text part of the request (system instruction and conversation), unescaped. */
function conversationText(json) {
  const contents = [json.systemInstruction, ...(Array.isArray(json.contents) ? json.contents : [])];
  return contents
    .flatMap((c) => (c && typeof c === 'object' && Array.isArray(c.parts) ? c.parts : []))
    .map((p) => (typeof p?.text === 'string' ? p.text : ''))
    .join('\n');
}

/** Tool results so far: every `functionResponse` part in the conversation. */
function countToolResults(json) {
  const contents = Array.isArray(json.contents) ? json.contents : [];
  return contents.reduce((n, c) => n + (c.parts ?? []).filter((p) => p && p.functionResponse).length, 0);
}

/**
 * Gemini CLI tells the model where it runs in its session context ("I'm currently working in the
 * directory: /x", newer versions a `<session_context>` with "Workspace Directories: /x").
 */
function workingDirectory(json) {
  const text = conversationText(json);
  const patterns = [
    /currently working in the directory:\s*(\/\S+)/,
    /[Ww]orkspace [Dd]irector(?:y|ies):?\**\s*(?:-\s*)?(\/\S+)/,
    /[Cc]urrent working directory:?\s*(\/\S+)/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * A JSON side request (Gemini CLI's model router asks for `complexity_score`, older versions' next
 * speaker check for `next_speaker`): an object with every required property of the request's
 * schema, valued so that the CLI goes on as if the scripted model were simple and finished.
 */
function jsonAnswer(json) {
  const config = /** @type {Record<string, any>} */ (json.generationConfig ?? {});
  const schema = config.responseJsonSchema ?? config.responseSchema ?? {};
  const properties = schema.properties ?? {};
  /** @type {Record<string, unknown>} */
  const answer = {};
  for (const [name, property] of Object.entries(properties)) {
    const type = String(property.type ?? 'string').toLowerCase();
    if (name === 'next_speaker') answer[name] = 'user';
    else if (Array.isArray(property.enum)) answer[name] = property.enum[0];
    else if (type === 'integer' || type === 'number') answer[name] = 1;
    else if (type === 'boolean') answer[name] = false;
    else if (type === 'string') answer[name] = 'Scripted upstream: a fixed answer.';
  }
  return JSON.stringify(answer);
}
