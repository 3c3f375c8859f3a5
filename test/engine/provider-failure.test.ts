import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExternalAgent } from '../../src/domain/agents/external/agent.js';
import type { AgentProfile } from '../../src/domain/agents/external/profile.js';
import { stripAnsi } from '../../src/cli/format.js';
import { formatStats } from '../../src/cli/format-stats.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun, type RunOptions } from '../../src/engine/index.js';
import { renderMarkdown, runViewOf } from '../../src/features/report/index.js';
import { replayAttemptDir } from '../../src/domain/trace/index.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { tinyTaskSet } from '../cli/fixtures.js';
import { useTempDirs } from '../helpers/tmp.js';

/*
 * A command-line agent (a node script, run under bwrap like Claude Code or Codex) whose only
 * network is the attempt's gateway, against a local model server that fails the way real ones do:
 * HTTP 500 on every request, a stream cut off mid-way, a stream that stops sending. The agent
 * retries twice, as SDKs do, then gives up with a non-zero exit, having changed nothing. None of
 * that is the agent's failure: every attempt is `provider_error`, unscored, with no turns.
 */

const tempDir = useTempDirs();

const AGENT_SCRIPT = `#!/usr/bin/env node
import { readFileSync } from 'node:fs';
const [model, stream, taskFile] = process.argv.slice(2);
if (model === '--version') { console.log('flaky-agent 1.0.0'); process.exit(0); }
for (let attempt = 0; attempt < 3; attempt++) {
  try {
    const response = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
      body: JSON.stringify({ model, stream: stream === 'stream', messages: [{ role: 'user', content: readFileSync(taskFile, 'utf8') }] }),
    });
    const text = await response.text();
    if (response.ok && (stream !== 'stream' || text.includes('[DONE]'))) { console.log(text); process.exit(0); }
    console.error('model call failed: HTTP ' + response.status);
  } catch (error) {
    console.error('model call failed: ' + error.message);
  }
}
console.error('giving up');
process.exit(1);
`;

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function modelServer(behaviour: Behaviour): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => behaviour(req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => requests };
}

const always500: Behaviour = (_req, res) => {
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: 'internal error', type: 'server_error' } }));
};

const firstChunk = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4.1-mini', choices: [{ index: 0, delta: { content: 'Let me' } }] })}\n\n`;

/** One event, then the connection is reset: the stream is cut short. */
const cutStream: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(firstChunk, () => setTimeout(() => res.socket?.destroy(), 20));
};

/** One event, then nothing, ever. */
const stalledStream: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(firstChunk);
};

function setup(upstreamUrl: string, stream: boolean, models: Partial<NonNullable<RunOptions['models']>> = {}): RunOptions {
  const dir = tempDir();
  const stateDir = join(dir, '.crucible');
  const bin = join(stateDir, 'agents', 'flaky', 'bin');
  mkdirSync(bin, { recursive: true });
  const script = join(bin, 'flaky');
  writeFileSync(script, AGENT_SCRIPT);
  chmodSync(script, 0o755);
  const profile: AgentProfile = {
    name: 'flaky',
    commandPath: script,
    command: ['flaky', '{model}', stream ? 'stream' : 'plain', '{task_file}'],
    stdin: 'none',
    env: [],
    setEnv: {},
    homeFiles: {},
    versionCommand: ['flaky', '--version'],
    model: 'gpt-4.1-mini',
    protocol: { kind: 'openai-chat', baseUrlEnv: ['OPENAI_BASE_URL'], apiKeyEnv: ['OPENAI_API_KEY'] },
    output: 'text',
    source: join(dir, 'agents.yaml'),
  };
  const file = tinyTaskSet(dir, 1);
  return {
    taskSetFile: file,
    tasks: loadTaskSet(file).tasks,
    agents: ['flaky'],
    trials: 2,
    stateDir,
    settings: { sandbox: 'bwrap' },
    concurrency: 1,
    resolveAgent: (spec) => createExternalAgent(profile, undefined, spec),
    models: { baseUrl: upstreamUrl, env: { OPENAI_API_KEY: 'sk-test' }, ...models },
  };
}

function expectProviderErrors(attempts: readonly AttemptResult[], failure: string): void {
  expect(attempts).toHaveLength(2);
  for (const attempt of attempts) {
    expect(attempt.verdict, attempt.message).toBe('ERROR');
    expect(attempt.cause, attempt.message).toBe('provider_error');
    expect(attempt.score).toBeUndefined();
    expect(attempt.message).toContain(`the last model request failed at openai (${failure}`);
    // Three requests reached the provider, none answered: no turns.
    expect(attempt.agentResult?.turns).toBe(0);
    expect(attempt.agentResult?.usage?.requests).toBe(3);
    expect(attempt.agentResult?.provider).toMatchObject({ name: 'openai', requests: 3, answered: 0, failed: 3, byKind: { [failure]: 3 } });
  }
}

describe('provider failures are nobody’s pass or fail', () => {
  it('a model server that answers 500 to every request: every attempt is provider_error with 0 turns, and no pass rate, said so', async () => {
    const server = await modelServer(always500);
    const outcome = await executeRun(setup(server.url, false));
    expectProviderErrors(outcome.attempts, 'status');
    expect(server.requests()).toBe(6);

    const stats = outcome.summary.stats;
    if (!stats) throw new Error('no stats in summary.json');
    const agent = stats.agents[0];
    expect(agent).toMatchObject({ agent: 'flaky', attempts: 2, scored: 0, passRate: null, providerErrors: { count: 2, byProvider: { openai: 2 } } });
    expect(agent?.harnessErrors.count).toBe(2);
    expect(agent?.causes.provider_error).toBe(2);
    expect(stats.providerErrors).toEqual({ count: 2, byProvider: { openai: 2 } });
    expect(stats.notes).toContain('no scored attempts, so no pass rate, for: flaky (2 provider_error)');

    const terminal = stripAnsi(formatStats(stats));
    expect(terminal).toMatch(/flaky +n\/a +- +0 +0 /);
    expect(terminal).toContain('provider errors (unscored, retried by resume --retry-errors): flaky 2 of 2 (openai 2)');
    expect(terminal).toContain('no scored attempts, so no pass rate, for: flaky (2 provider_error)');
    const markdown = renderMarkdown(runViewOf({ runDir: outcome.runDir, summary: outcome.summary, attempts: outcome.attempts }), outcome.attempts);
    expect(markdown).toContain('| **flaky** | no scored attempts | 0/0 |');
    expect(markdown).toContain('- **flaky**: 2 of 2 attempts (openai 2)');

    // The trace carries what grading read of the provider: an offline re-grade agrees.
    const replay = await replayAttemptDir(join(outcome.runDir, 'attempts', outcome.attempts[0]?.attemptId ?? ''));
    expect(replay).toMatchObject({ match: true, replayed: { verdict: 'ERROR', cause: 'provider_error' } });
  });

  it('resume --retry-errors reruns provider errors; once the provider answers they are scored', async () => {
    let healthy = false;
    const server = await modelServer((req, res) => {
      if (!healthy) return always500(req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: 'gpt-4.1-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'no' }, finish_reason: 'stop' }],
        }),
      );
    });
    const options = setup(server.url, false);
    const first = await executeRun(options);
    expect(first.attempts.map((a) => a.cause)).toEqual(['provider_error', 'provider_error']);
    healthy = true;
    const resumed = await executeRun({ ...options, resume: { runId: first.summary.runId, retryErrors: true } });
    // The agent now got its answer and changed nothing: its own failure, scored, with its one turn.
    expect(resumed.attempts.map((a) => a.cause)).toEqual(['no_changes', 'no_changes']);
    expect(resumed.attempts.map((a) => a.agentResult?.turns)).toEqual([1, 1]);
    expect(resumed.summary.stats.agents[0]).toMatchObject({ scored: 2, providerErrors: { count: 0 } });
  });

  it('a replay that misses its recording (the instruction changed) is a cassette error naming the instruction, not the agent crashing', async () => {
    const server = await modelServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: 'gpt-4.1-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'no' }, finish_reason: 'stop' }],
        }),
      );
    });
    const options = setup(server.url, false);
    const cassetteDir = join(options.stateDir, 'cassettes');
    const recorded = await executeRun({ ...options, trials: 1, models: { ...options.models, mode: 'record', cassetteDir } });
    expect(recorded.attempts[0]?.cause).toBe('no_changes');
    writeFileSync(options.taskSetFile, readFileSync(options.taskSetFile, 'utf8').replace('make value.txt say right (1)', 'make value.txt say wrong'));
    const replayed = await executeRun({
      ...options,
      tasks: loadTaskSet(options.taskSetFile).tasks,
      trials: 1,
      models: { ...options.models, mode: 'replay', cassetteDir },
    });
    const attempt = replayed.attempts[0] as AttemptResult;
    expect(attempt.verdict).toBe('ERROR');
    expect(attempt.cause).toBe('harness_error');
    expect(attempt.message).toMatch(
      /^cassette error: 3 model request\(s\) have no recording; replay miss: .*the next recording due, #0, first differs at messages\[0\]\.content: recorded "make value\.txt say right \(1\)" ≠ requested "make value\.txt say wrong"/,
    );
    // Misses are no provider failures and no turns.
    expect(attempt.agentResult?.provider).toBeUndefined();
    expect(attempt.agentResult?.turns).toBe(0);
  });

  it('a stream the provider cuts short mid-way: provider_error (cut), not the agent crashing', async () => {
    const server = await modelServer(cutStream);
    const outcome = await executeRun(setup(server.url, true));
    expectProviderErrors(outcome.attempts, 'cut');
  });

  it('a stream that stops sending: the gateway cuts it off at the stall limit, provider_error (stalled), not a timeout', async () => {
    const server = await modelServer(stalledStream);
    const outcome = await executeRun(setup(server.url, true, { providerStallMs: 300 }));
    expectProviderErrors(outcome.attempts, 'stalled');
  });
});
