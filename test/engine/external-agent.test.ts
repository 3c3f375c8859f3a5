import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExternalAgent } from '../../src/domain/agents/external/agent.js';
import type { AgentProfile } from '../../src/domain/agents/external/profile.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun, type RunOptions } from '../../src/engine/index.js';
import { InputError } from '../../src/core/errors.js';
import { formatRunReport } from '../../src/cli/format-run.js';
import { renderMarkdown, runViewOf } from '../../src/features/report/index.js';
import { parseTrajectory } from '../../src/features/report/trajectory.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { tinyTaskSet } from '../cli/fixtures.js';
import { captureIo, crucible } from '../helpers/cli.js';
import { handleError } from '../../src/cli/exit.js';
import { useTempDirs } from '../helpers/tmp.js';

/*
 * A command-line agent run as Crucible runs Claude Code or Codex: a node script given by
 * command_path, under bwrap, whose only network is the attempt's gateway. It asks the (local,
 * canned) upstream through the gateway, fixes value.txt, and prints its whole environment and HOME
 * so the test can look for the real key.
 */

const tempDir = useTempDirs();
const REAL_KEY = 'sk-real-key-canary-4b7d9e21f0';
const PASS_VAR = 'CRUCIBLE_TEST_PASSED_THROUGH';
const TOKEN = `orphan-${process.pid}`;

const AGENT_SCRIPT = `#!/usr/bin/env node
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
const [model, taskFile, mode] = process.argv.slice(2);
if (model === '--version') {
  // Untrusted code like the agent: it must find no key and no writable install directory.
  try { writeFileSync(new URL('./written-by-version', import.meta.url), 'x'); } catch {}
  console.log('scripty 1.2.3' + (process.env.OPENAI_API_KEY ? ' saw-a-key' : '')); console.log('second line'); process.exit(0);
}
// A version command that never answers, so a test can stop the run while it waits.
if (model === '--version-wait') await new Promise(() => setInterval(() => {}, 1000));
if (mode === 'gateway-attack') {
  // Paths a URL parser would resolve (fetch would too, so raw http), three plain requests, and another model.
  const { request } = await import('node:http');
  const base = new URL(process.env.OPENAI_BASE_URL);
  const send = (path, body) => new Promise((resolve) => {
    const req = request({ host: base.hostname, port: base.port, path: base.pathname + path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end(JSON.stringify(body));
  });
  const ask = (m) => ({ model: m, messages: [{ role: 'user', content: 'fix it' }] });
  const statuses = [];
  for (const path of ['/./chat/completions', '/x/../chat/completions', '/%2e/chat/completions', '/chat/completions', '/chat/completions', '/chat/completions']) statuses.push(await send(path, ask(model)));
  statuses.push(await send('/chat/completions', ask('gpt-4.1')));
  console.log('STATUSES ' + JSON.stringify(statuses));
  process.exit(0);
}
// The words and exit code of a program the sandbox could not start, printed by the agent itself.
if (mode === 'forge127') { process.stderr.write('crucible: scripty: command not found\\n'); process.exit(127); }
const response = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
  body: JSON.stringify({ model, messages: [{ role: 'user', content: readFileSync(taskFile, 'utf8') }] }),
});
const answer = await response.json();
if (mode === 'fail') { console.error('boom: the agent gave up'); process.exit(3); }
writeFileSync(mode === 'hang' ? 'partial.txt' : 'value.txt', 'right\\n');
const list = (dir) => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? list(path) : [{ path, content: readFileSync(path, 'utf8') }];
});
console.log('ENV ' + JSON.stringify(process.env));
console.log('HOME ' + JSON.stringify(list(process.env.HOME)));
if (mode === 'claude') {
  const bash = (id, command) => ({ type: 'assistant', message: { content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] } });
  for (const line of [
    { type: 'system', subtype: 'init', tools: ['Bash'] },
    bash('toolu_1', 'cat value.txt'),
    { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'wrong' }] } },
    bash('toolu_2', 'sudo rm -rf /'),
    { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'sudo: not found', is_error: true }] } },
    { type: 'result', subtype: 'success', is_error: false, num_turns: 3, result: 'Done.' },
  ]) console.log(JSON.stringify(line));
} else if (mode === 'hang') {
  spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '${TOKEN}'], { stdio: 'ignore' });
  setInterval(() => {}, 1000);
} else {
  console.log('\\n' + answer.choices[0].message.content);
}
`;

let upstream: Server;
let upstreamUrl: string;
const seenAuth: string[] = [];
const savedKey = process.env.OPENAI_API_KEY;

beforeAll(async () => {
  process.env.OPENAI_API_KEY = REAL_KEY;
  process.env[PASS_VAR] = 'passed-value';
  upstream = createServer((req, res) => {
    seenAuth.push(req.headers.authorization ?? '');
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4.1-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Fixed value.txt.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedKey;
  delete process.env[PASS_VAR];
  await new Promise((resolve) => upstream.close(resolve));
});

interface Setup {
  dir: string;
  stateDir: string;
  profile: AgentProfile;
  options: RunOptions;
}

/** A one-task set and the script agent installed under the state dir (hidden from sandboxes, like the agent cache). */
function setup(mode: 'ok' | 'fail' | 'hang' | 'claude' | 'gateway-attack' | 'forge127', overrides: Partial<AgentProfile> = {}): Setup {
  const dir = tempDir();
  const stateDir = join(dir, '.crucible');
  const bin = join(stateDir, 'agents', 'scripty', 'bin');
  mkdirSync(bin, { recursive: true });
  const script = join(bin, 'scripty');
  writeFileSync(script, AGENT_SCRIPT);
  chmodSync(script, 0o755);
  const profile: AgentProfile = {
    name: 'scripty',
    commandPath: script,
    command: ['scripty', '{model}', '{task_file}', mode],
    stdin: 'none',
    env: [PASS_VAR],
    setEnv: { SCRIPTY_REPO: '{repo_dir}' },
    homeFiles: { '.scripty/config.toml': 'base_url = "{base_url}"\napi_key = "{api_key}"\nmodel = "{model}"\n' },
    versionCommand: ['scripty', '--version'],
    model: 'gpt-4.1-mini',
    protocol: { kind: 'openai-chat', baseUrlEnv: ['OPENAI_BASE_URL'], apiKeyEnv: ['OPENAI_API_KEY'] },
    output: 'text',
    source: join(dir, 'agents.yaml'),
    ...overrides,
  };
  const file = tinyTaskSet(dir, 1);
  const options: RunOptions = {
    taskSetFile: file,
    tasks: loadTaskSet(file).tasks,
    agents: ['scripty'],
    trials: 1,
    stateDir,
    settings: { sandbox: 'bwrap' },
    concurrency: 1,
    resolveAgent: (spec) => createExternalAgent(profile, undefined, spec),
    models: { baseUrl: upstreamUrl },
  };
  return { dir, stateDir, profile, options };
}

/** Polls a condition the test cannot be told about (another process's state), with no deadline of its own. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

function attemptDirOf(runDir: string, attempt: AttemptResult): string {
  return join(runDir, 'attempts', attempt.attemptId);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const info = statSync(path);
    return info.isDirectory() ? filesUnder(path) : info.isFile() ? [path] : [];
  });
}

function printed(stdout: string, label: 'ENV' | 'HOME'): unknown {
  const line = stdout.split('\n').find((l) => l.startsWith(`${label} `));
  if (line === undefined) throw new Error(`the agent printed no ${label} line`);
  return JSON.parse(line.slice(label.length + 1)) as unknown;
}

describe('external agents under bwrap and the gateway', () => {
  it('runs the program sandboxed against the gateway: PASS, metered usage, no real key anywhere, identity and trajectory recorded', async () => {
    const { stateDir, options } = setup('ok');
    const outcome = await executeRun(options);
    const attempt = outcome.attempts[0] as AttemptResult;
    expect(attempt.verdict, JSON.stringify(attempt.checks.filter((c) => !c.passed))).toBe('PASS');
    expect(attempt.agentResult?.stopReason).toBe('end_turn');
    // The gateway's metering of the canned answer, not anything the agent said.
    expect(attempt.agentResult?.usage).toMatchObject({ inputTokens: 11, outputTokens: 7, requests: 1 });
    // The upstream got the real key from the gateway; the agent only ever had the dummy one.
    expect(seenAuth.at(-1)).toBe(`Bearer ${REAL_KEY}`);
    expect(attempt.agentInfo).toMatchObject({ profile: 'scripty', version: 'scripty 1.2.3', model: 'gpt-4.1-mini' });
    // The version command ran sandboxed: the install directory stayed read-only to it.
    expect(existsSync(join(stateDir, 'agents', 'scripty', 'bin', 'written-by-version'))).toBe(false);
    expect(attempt.agentInfo?.profileHash).toMatch(/^[0-9a-f]{64}$/);

    const dir = attemptDirOf(outcome.runDir, attempt);
    const stdout = readFileSync(join(dir, 'agent-stdout.log'), 'utf8');
    const env = printed(stdout, 'ENV') as Record<string, string>;
    expect(env.OPENAI_API_KEY).toBe('crucible-gateway-session');
    expect(env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s\/[^/]+\/openai\/v1$/);
    // The agent had the passed-through value; what it printed is kept with the value redacted.
    expect(env[PASS_VAR]).toBe(`[${PASS_VAR} redacted]`);
    expect(env.SCRIPTY_REPO).toMatch(/\/workspace$/);
    const home = printed(stdout, 'HOME') as Array<{ path: string; content: string }>;
    const config = home.find((f) => f.path.endsWith('.scripty/config.toml'));
    expect(config?.content).toContain(`base_url = "${env.OPENAI_BASE_URL}"`);
    expect(config?.content).toContain('api_key = "crucible-gateway-session"');
    expect(home.some((f) => f.content === 'make value.txt say right (1)')).toBe(true);
    expect(JSON.stringify(env) + JSON.stringify(home)).not.toContain(REAL_KEY);
    // Nothing the run wrote holds the real key: logs, cassettes, attempt.json, history.
    for (const file of filesUnder(stateDir)) {
      expect(readFileSync(file, 'utf8'), file).not.toContain(REAL_KEY);
      expect(readFileSync(file, 'utf8'), file).not.toContain('passed-value');
    }

    // commands.jsonl has the program's argv and only the names of its variables.
    const command = JSON.parse(readFileSync(join(dir, 'commands.jsonl'), 'utf8').split('\n')[0] as string) as {
      argv: string[];
      envNames: string[];
      network: string;
    };
    expect(command.network).toBe('gateway');
    expect(command.envNames).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'OPENAI_BASE_URL', PASS_VAR]));

    const trajectory = parseTrajectory(readFileSync(join(dir, 'trajectory.jsonl'), 'utf8'));
    expect(trajectory.unreadableLines).toBe(0);
    expect(trajectory.events[0]).toMatchObject({ type: 'start', role: 'harness' });
    expect(trajectory.events.at(-1)).toMatchObject({ type: 'end', title: expect.stringContaining('stopped: end_turn') });
    expect(trajectory.events.at(-1)?.detail).toContain('Fixed value.txt.');

    const recorded = JSON.parse(readFileSync(join(dir, 'attempt.json'), 'utf8')) as AttemptResult;
    expect(recorded.agentInfo).toEqual(attempt.agentInfo);
    const identity = `scripty 1.2.3 · profile scripty@${attempt.agentInfo?.profileHash.slice(0, 8)} · model gpt-4.1-mini`;
    const markdown = renderMarkdown(runViewOf({ runDir: outcome.runDir, summary: outcome.summary, attempts: [recorded] }), [recorded]);
    expect(markdown).toContain(`## External agents`);
    expect(markdown).toContain(`| **scripty** | ${identity} | – |`);

    const info = { scripty: recorded.agentInfo as NonNullable<AttemptResult['agentInfo']> };
    const terminal = formatRunReport({ runId: 'r', attempts: [], planned: 1, executed: 1, counts: outcome.summary.counts, stats: null, agentInfo: info });
    expect(terminal).toContain(identity);

    const shown = crucible(['show', attempt.attemptId, '--out', stateDir]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`agent scripty: ${identity}`);
    expect(shown.stdout).toContain('stopped: end_turn');
  });

  it('an agent sending dot-segment paths and asking for another model gets nothing past the gateway: --max-turns 2 means 2 upstream requests', async () => {
    const { options } = setup('gateway-attack');
    const before = seenAuth.length;
    const outcome = await executeRun({ ...options, models: { ...options.models, limits: { maxTurns: 2 } } });
    const attempt = outcome.attempts[0] as AttemptResult;
    expect(seenAuth.length - before).toBe(2);
    const stdout = readFileSync(join(attemptDirOf(outcome.runDir, attempt), 'agent-stdout.log'), 'utf8');
    expect(stdout).toContain('STATUSES [400,400,400,200,200,402,400]');
    expect(attempt.agentResult?.stopReason).toBe('max_turns');
    expect(attempt.agentResult?.usage).toMatchObject({
      requests: 2,
      models: { 'gpt-4.1-mini': 2 },
      refused: { requests: 5, reasons: { dot_segment: 3, budget: 1, model_not_allowed: 1 } },
    });
    const report = renderMarkdown(runViewOf({ runDir: outcome.runDir, summary: outcome.summary, attempts: [attempt] }), [attempt]);
    expect(report).toContain('**Gateway:** gateway refused 5 requests (dot\\_segment 3, budget 1, model\\_not\\_allowed 1): a dot segment');
    const turns = readFileSync(join(attemptDirOf(outcome.runDir, attempt), 'trajectory.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; model?: string })
      .filter((e) => e.type === 'turn');
    expect(turns.map((t) => t.model)).toEqual(['gpt-4.1-mini', 'gpt-4.1-mini']);
  });

  it('a program that exits non-zero fails the attempt as the agent crashing, with its stderr, not as a harness error', async () => {
    const { options } = setup('fail');
    const attempt = (await executeRun(options)).attempts[0] as AttemptResult;
    expect(attempt.verdict).toBe('FAIL');
    expect(attempt.cause).toBe('agent_crashed');
    expect(attempt.agentResult?.error).toContain('exit 3');
    expect(attempt.agentResult?.error).toContain('boom: the agent gave up');
  });

  it('a program that prints "command not found" and exits 127 is the agent crashing: its words are not the sandbox\'s report', async () => {
    const { options } = setup('forge127');
    const attempt = (await executeRun(options)).attempts[0] as AttemptResult;
    expect({ verdict: attempt.verdict, cause: attempt.cause }, attempt.message).toEqual({ verdict: 'FAIL', cause: 'agent_crashed' });
    expect(attempt.agentResult?.errorKind).toBeUndefined();
    expect(attempt.agentResult?.error).toContain('exit 127');
  });

  it("a program the sandbox cannot start (its interpreter is missing) is a harness error, by the supervisor's own report", async () => {
    const { stateDir, options } = setup('ok', { versionCommand: undefined });
    writeFileSync(join(stateDir, 'agents', 'scripty', 'bin', 'scripty'), '#!/nonexistent/interpreter\n');
    const attempt = (await executeRun(options)).attempts[0] as AttemptResult;
    expect({ verdict: attempt.verdict, cause: attempt.cause }, attempt.message).toEqual({ verdict: 'ERROR', cause: 'harness_error' });
    expect(attempt.agentResult).toMatchObject({ errorKind: 'harness', error: expect.stringContaining("could not start the agent's program (ENOENT)") });
  });

  it("commands the agent's output reports feed the unsafe-commands check, marked as reported", async () => {
    const { options } = setup('claude', { output: 'claude-stream-json' });
    const outcome = await executeRun(options);
    const attempt = outcome.attempts[0] as AttemptResult;
    expect(attempt.cause).toBe('policy_violation');
    expect(attempt.checks.find((c) => c.id === 'unsafe_commands')?.message).toContain('privilege-escalation');
    // Its output claims 3 turns and 2 tool calls; the gateway saw one request asking for none, and
    // the gateway's count is the record.
    expect(attempt.agentResult).toMatchObject({ stopReason: 'end_turn', turns: 1, toolCalls: 0 });
    const log = readFileSync(join(attemptDirOf(outcome.runDir, attempt), 'commands.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { argv: string[]; reportedBy?: string; exitCode: number | null });
    expect(log.map((c) => [c.argv.at(-1), c.reportedBy ?? 'harness'])).toEqual([
      ['claude', 'harness'],
      ['cat value.txt', 'agent'],
      ['sudo rm -rf /', 'agent'],
    ]);
    const trajectory = parseTrajectory(readFileSync(join(attemptDirOf(outcome.runDir, attempt), 'trajectory.jsonl'), 'utf8'));
    expect(trajectory.events.filter((e) => e.role === 'tool').map((e) => e.title)).toEqual([
      '← Bash {"command":"cat value.txt"}',
      '✗ Bash {"command":"sudo rm -rf /"}',
    ]);
  });

  it('a timeout kills the whole process tree and keeps the edits made before it', async () => {
    const { options } = setup('hang');
    const outcome = await executeRun({ ...options, models: { ...options.models, agentTimeoutMs: 4_000 } });
    const attempt = outcome.attempts[0] as AttemptResult;
    expect(attempt.agentResult?.stopReason).toBe('timeout');
    expect(attempt.cause).toBe('agent_timeout');
    const recorded = JSON.parse(readFileSync(join(attemptDirOf(outcome.runDir, attempt), 'attempt.json'), 'utf8')) as AttemptResult;
    expect(recorded.diff?.files.map((f) => f.path)).toEqual(['partial.txt']);
    // What it printed before the kill is kept, and its trajectory ends on the timeout.
    expect(readFileSync(join(attemptDirOf(outcome.runDir, attempt), 'agent-stdout.log'), 'utf8')).toContain('ENV ');
    const trajectory = parseTrajectory(readFileSync(join(attemptDirOf(outcome.runDir, attempt), 'trajectory.jsonl'), 'utf8'));
    expect(trajectory.events.at(-1)?.title).toContain('stopped: timeout');
    const survivors = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(TOKEN);
        } catch {
          return false;
        }
      });
    expect(survivors).toEqual([]);
  });

  it('a program gone by the time the attempt runs is a harness error, not the agent failing', async () => {
    const { options, profile } = setup('ok');
    const gone = (spec: string) => {
      const agent = createExternalAgent(profile, undefined, spec);
      return {
        ...agent,
        prepare: async (env: Parameters<NonNullable<typeof agent.prepare>>[0]) => {
          const prepared = await (agent.prepare as NonNullable<typeof agent.prepare>)(env);
          rmSync(profile.commandPath as string);
          return prepared;
        },
      };
    };
    const attempt = (await executeRun({ ...options, resolveAgent: gone })).attempts[0] as AttemptResult;
    expect(attempt.verdict).toBe('ERROR');
    expect(attempt.cause).toBe('harness_error');
    expect(attempt.message).toContain('is missing or not executable');
  });

  it('a run stopped while the version command runs is interrupted, not a broken profile: nothing blames version_command', async () => {
    const { stateDir, options } = setup('ok', { versionCommand: ['scripty', '--version-wait', TOKEN] });
    const stop = new AbortController();
    const run = executeRun({ ...options, signal: stop.signal }).then(
      () => undefined,
      (error: unknown) => error,
    );
    let settled = false;
    void run.then(() => (settled = true));
    await until(() => settled || spawnSync('pgrep', ['-f', '--', `--version-wait ${TOKEN}`]).status === 0);
    stop.abort();
    const stopped = await run;
    expect(stopped).toBeInstanceOf(Error);
    expect(stopped).not.toBeInstanceOf(InputError);
    expect(String(stopped)).not.toContain('version_command');
    expect(existsSync(join(stateDir, 'runs'))).toBe(false);
    // And the command ends as any interrupted one does.
    const captured = captureIo();
    expect(handleError(stopped, captured.io)).toBe(130);
    expect(captured.stderr()).toBe('interrupted\n');
  });

  it('stops before any attempt when the program is missing (exit 2), or the key is (naming the variable)', async () => {
    const missing = setup('ok', { commandPath: '/nonexistent/scripty' });
    await expect(executeRun(missing.options)).rejects.toThrow(InputError);
    await expect(executeRun(setup('ok', { commandPath: '/nonexistent/scripty' }).options)).rejects.toThrow(/command_path \/nonexistent\/scripty/);

    const keyless = setup('ok');
    delete process.env.OPENAI_API_KEY;
    try {
      await expect(executeRun(keyless.options)).rejects.toThrow(/OPENAI_API_KEY is not set/);
    } finally {
      process.env.OPENAI_API_KEY = REAL_KEY;
    }
    // Stopped before the run directory was made: nothing to resume, nothing to clean.
    for (const s of [missing, keyless]) expect(existsSync(join(s.stateDir, 'runs'))).toBe(false);
  });
});
