/**
 * A SCRIPTED stand-in for a model, NOT a model, for external CLI agents (Claude Code, Codex, Qwen
 * Code, Gemini CLI, OpenCode). It serves, on 127.0.0.1, the four wire formats those agents speak:
 *
 *   POST /v1/messages                                   Anthropic Messages (SSE when stream: true)
 *   POST /v1/messages/count_tokens                      an estimate, for Claude Code
 *   POST /v1/responses                                  OpenAI Responses (SSE when stream: true)
 *   POST /v1/chat/completions                           OpenAI Chat Completions (SSE when stream: true)
 *   POST /v1beta/models/<model>:generateContent          Gemini (and :streamGenerateContent?alt=sse)
 *   GET  /v1/models                                     an empty-ish model list, for agents that ask
 *
 * and drives the agent through one plan per bundled example task (scripted-agent-upstream/plans.mjs):
 * read the files the oracle patch changes, write each with the oracle's content, then finish with
 * a short message. The `tamper` plan instead rewrites the task's test file so it cannot fail. Each
 * protocol module (scripted-agent-upstream/<protocol>.mjs) turns the next step into that agent's
 * own tool (Claude Code's `Write`, Codex's `apply_patch`, Qwen's `write_file`, …), so the agent
 * really reads and edits the files with its own tools, in its own sandbox.
 *
 * The plan is `fix` unless the server was started with another, or the request's path starts with
 * `/tamper` (or `/fix`): give an agent the base URL `${baseUrl}/tamper` to have it cheat. Under
 * `/stall`, a model request gets its stream's headers and then nothing, ever: a provider that hangs.
 *
 * Run directly (`node scripts/scripted-agent-upstream.mjs [--port N]`), it prints its base URL on
 * the first line of stdout and serves until killed: for tests that drive the CLI synchronously.
 *
 * Stateless: the next step is counted from the tool results already in the conversation, so
 * retries, parallel side requests (titles, summaries) and replays all get consistent answers.
 * Requests that offer no tools (a title, a summary) get a short plain answer. Every response
 * carries the header `x-crucible-scripted-upstream`; token counts are estimates (4 characters a token).
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { loadPlans } from './scripted-agent-upstream/plans.mjs';

/** @typedef {import('./scripted-agent-upstream.d.mts').ScriptedReply} ScriptedReply */
/** @typedef {import('./scripted-agent-upstream.d.mts').ScriptedRequest} ScriptedRequest */

const PROTOCOLS = [
  {
    test: (method, path) => method === 'POST' && (path === '/v1/messages' || path === '/v1/messages/count_tokens'),
    module: './scripted-agent-upstream/anthropic.mjs',
  },
  { test: (method, path) => method === 'POST' && path === '/v1/responses', module: './scripted-agent-upstream/openai-responses.mjs' },
  { test: (method, path) => method === 'POST' && path === '/v1/chat/completions', module: './scripted-agent-upstream/openai-chat.mjs' },
  {
    test: (method, path) => method === 'POST' && /^\/v1(beta)?\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path),
    module: './scripted-agent-upstream/gemini.mjs',
  },
];

/**
 * @param {{ port?: number, plan?: 'fix' | 'tamper', root?: string }} [options]
 *   `plan` applies to every task; `root` is the Crucible checkout whose examples/ are scripted.
 */
export async function startScriptedAgentUpstream(options = {}) {
  const plans = loadPlans(options.root);
  const planName = options.plan ?? 'fix';
  /** @type {Array<{ method: string, path: string }>} */
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://scripted');
      const method = req.method ?? 'GET';
      requests.push({ method, path: url.pathname });
      // A `/tamper` or `/fix` prefix picks the plan per request, so one server serves both.
      const prefixed = /^\/(fix|tamper|stall)(\/.*)$/.exec(url.pathname);
      if (prefixed?.[1] === 'stall' && method === 'POST') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-crucible-scripted-upstream': '1' });
        res.flushHeaders();
        return;
      }
      if (prefixed) url.pathname = prefixed[2];
      const plan = prefixed && prefixed[1] !== 'stall' ? /** @type {'fix' | 'tamper'} */ (prefixed[1]) : planName;
      handle(method, url, Buffer.concat(chunks).toString('utf8'), plan)
        .then((reply) => send(res, reply))
        .catch((error) => send(res, { status: 500, body: { error: { message: `scripted upstream: ${error.message}` } } }));
    });
  });

  /** @returns {Promise<ScriptedReply>} */
  async function handle(method, url, text, plan) {
    if (method === 'GET' && /^\/v1(beta)?\/models\/?$/.test(url.pathname)) {
      return { status: 200, body: { object: 'list', data: [], models: [] } };
    }
    const protocol = PROTOCOLS.find((p) => p.test(method, url.pathname));
    if (!protocol) return { status: 404, body: { error: { message: `scripted upstream: no route for ${method} ${url.pathname}` } } };
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      return { status: 400, body: { error: { message: 'scripted upstream: body is not JSON' } } };
    }
    const { respond } = await import(protocol.module);
    /** @type {ScriptedRequest} */
    const request = { path: url.pathname, query: url.searchParams, json, plans, planName: plan };
    return respond(request);
  }

  await new Promise((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    /** Without a version segment: `${baseUrl}/v1/messages`, `${baseUrl}/v1beta/models/…`. */
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}

/** @param {import('node:http').ServerResponse} res @param {ScriptedReply} reply */
function send(res, reply) {
  const headers = { 'x-crucible-scripted-upstream': '1', ...(reply.headers ?? {}) };
  if (reply.events) {
    res.writeHead(reply.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    for (const event of reply.events) res.write(event);
    res.end();
    return;
  }
  const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
  res.writeHead(reply.status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

/** Rough token count for scripted usage: about 4 characters a token. */
export function estimateTokens(text) {
  return Math.max(1, Math.ceil(String(text).length / 4));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const portFlag = process.argv.indexOf('--port');
  const upstream = await startScriptedAgentUpstream({ port: portFlag > 0 ? Number(process.argv[portFlag + 1]) : 0 });
  process.stdout.write(`${upstream.baseUrl}\n`);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void upstream.close().then(() => process.exit(0)));
}
