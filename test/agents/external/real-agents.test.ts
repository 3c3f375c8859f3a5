import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../../src/core/types/index.js';
import { attemptBudget } from '../../helpers/budget.js';
import { crucible } from '../../helpers/cli.js';
import { startScriptedAgentProcess, type ScriptedAgentProcess } from '../../helpers/scripted-agent-process.js';
import { useTempDirs } from '../../helpers/tmp.js';

/**
 * The real, pinned npm packages of the built-in profiles, each driven end to end by `crucible run`
 * inside bwrap against the scripted upstream (scripts/scripted-agent-upstream.mjs: a script, not a
 * model) through the metering gateway: the agent reads and edits with its own tools, the run is
 * graded, recorded, replayed offline with no key, and an agent that edits the test is caught.
 * Installs are cached in CRUCIBLE_AGENT_CACHE (CI sets it; locally node_modules/.cache).
 */
const AGENTS = [
  { name: 'claude-code', upstream: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY', version: '' },
  { name: 'codex', upstream: 'openai', keyEnv: 'OPENAI_API_KEY', version: '/v1' },
  { name: 'qwen-code', upstream: 'openai', keyEnv: 'OPENAI_API_KEY', version: '/v1' },
  { name: 'gemini-cli', upstream: 'gemini', keyEnv: 'GEMINI_API_KEY', version: '' },
  { name: 'opencode', upstream: 'openai', keyEnv: 'OPENAI_API_KEY', version: '/v1' },
] as const;

const TASKS = resolve('examples/tasks.yaml');
const CACHE = process.env['CRUCIBLE_AGENT_CACHE'] ?? resolve('node_modules/.cache/crucible-agents');
const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined };
/** Installing five agents from the registry; the one wait here that is not an attempt's. */
const INSTALL_TIMEOUT_MS = 900_000;

const tempDir = useTempDirs();
let upstream: ScriptedAgentProcess;

beforeAll(async () => {
  upstream = await startScriptedAgentProcess();
  const installed = crucible(['agents', 'install', ...AGENTS.map((a) => a.name)], { env: { CRUCIBLE_AGENT_CACHE: CACHE } });
  expect(installed.status, installed.stderr).toBe(0);
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await upstream?.stop();
});

function onlyAttempt(stateDir: string): AttemptResult & { agentInfo?: { version?: string; profileHash?: string } } {
  const runs = join(stateDir, 'runs');
  const [run] = readdirSync(runs);
  const dir = join(runs, run as string, 'attempts');
  const [attempt] = readdirSync(dir);
  return JSON.parse(readFileSync(join(dir, attempt as string, 'attempt.json'), 'utf8')) as AttemptResult;
}

describe.each(AGENTS)('$name, the real package', (agent) => {
  const run = (extra: string[], env: Record<string, string | undefined>) => {
    const out = tempDir();
    const args = ['run', TASKS, '--task', 'js-slugify', '--agent', agent.name, '--sandbox', 'bwrap', '--out', out, '-q', ...extra];
    const result = crucible(args, { env: { ...NO_KEYS, CRUCIBLE_AGENT_CACHE: CACHE, ...env }, attempts: 1 });
    return { result, attempt: () => onlyAttempt(out) };
  };

  it(
    'fixes the task with its own tools (PASS, metered), and the recording replays offline to the same verdict',
    () => {
      const cassettes = tempDir();
      const live = run(['--base-url', `${agent.upstream}=${upstream.baseUrl}${agent.version}`, '--record', cassettes], {
        [agent.keyEnv]: 'scripted-upstream-ignores-keys',
      });
      expect(live.result.status, live.result.stderr + live.result.stdout).toBe(0);
      const recorded = live.attempt();
      expect([recorded.verdict, recorded.cause]).toEqual(['PASS', 'passed']);
      expect(recorded.diff?.filesChanged).toBe(1);
      expect(recorded.agentResult?.usage?.requests).toBeGreaterThanOrEqual(2);
      expect(recorded.agentResult?.usage?.inputTokens).toBeGreaterThan(0);
      expect(recorded.agentInfo?.version).toBeTruthy();

      const replay = run(['--replay', cassettes], {});
      expect(replay.result.status, replay.result.stderr + replay.result.stdout).toBe(0);
      const replayed = replay.attempt();
      expect([replayed.verdict, replayed.cause]).toEqual(['PASS', 'passed']);
      expect(replayed.agentResult?.replay?.misses).toBe(0);
      expect(replayed.agentResult?.usage?.inputTokens).toBe(recorded.agentResult?.usage?.inputTokens);
    },
    attemptBudget(2),
  );

  it(
    'is caught as tampered when the script makes it edit the test instead',
    () => {
      const tamper = run(['--base-url', `${agent.upstream}=${upstream.baseUrl}/tamper${agent.version}`], { [agent.keyEnv]: 'scripted-upstream-ignores-keys' });
      expect(tamper.result.status, tamper.result.stderr).toBe(1);
      const attempt = tamper.attempt();
      expect([attempt.verdict, attempt.cause]).toEqual(['FAIL', 'tampered']);
    },
    attemptBudget(1),
  );
});

/** Long enough for each CLI's own retries to meet the stall limit several times; it ends the attempt either way. */
const STALLED_AGENT_TIMEOUT = '60s';

describe.each(AGENTS.slice(0, 3))('$name against a provider whose streams open and then stall', (agent) => {
  it(
    "is provider_error with no turns, whether the agent gives up or is stopped waiting: the silence is the provider's",
    () => {
      const out = tempDir();
      const args = ['run', TASKS, '--task', 'js-slugify', '--agent', agent.name, '--sandbox', 'bwrap', '--out', out, '-q'];
      const stalled = [
        '--base-url',
        `${agent.upstream}=${upstream.baseUrl}/stall${agent.version}`,
        '--provider-stall',
        '2s',
        '--agent-timeout',
        STALLED_AGENT_TIMEOUT,
      ];
      const result = crucible([...args, ...stalled], {
        env: { ...NO_KEYS, CRUCIBLE_AGENT_CACHE: CACHE, [agent.keyEnv]: 'scripted-upstream-ignores-keys' },
        attempts: 4,
      });
      expect(result.status, JSON.stringify(result)).toBe(1);
      const attempt = onlyAttempt(out);
      expect([attempt.verdict, attempt.cause], attempt.message).toEqual(['ERROR', 'provider_error']);
      expect(attempt.message).toContain('stalled');
      expect(attempt.agentResult?.turns).toBe(0);
      expect(attempt.agentResult?.usage?.requests).toBeGreaterThanOrEqual(1);
    },
    attemptBudget(4),
  );
});

describe('the committed agents cassette (examples/cassettes/agents, recorded against the scripted upstream)', () => {
  const CASSETTES = resolve('examples/cassettes/agents');

  it(
    'replays claude-code, codex and qwen-code on every example task with no key and no network: all graded, tokens and cost per agent, compared',
    () => {
      const out = tempDir();
      const args = ['run', TASKS, '--agent', 'claude-code', '--agent', 'codex', '--agent', 'qwen-code', '--replay', CASSETTES, '--out', out];
      const result = crucible(args, { env: { ...NO_KEYS, CRUCIBLE_AGENT_CACHE: CACHE }, attempts: 18 });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('18/18 attempts: 18 passed, 0 failed, 0 errored');
      // Per agent: tokens, and cost where pricing.yaml prices the model (qwen3-coder-plus it does not).
      expect(result.stdout).toMatch(/\nclaude-code +[\d.]+s \/ [\d.]+s \/ [\d.]+s +[\d.]+k \/ [\d.]+k \/ [\d.]+k +\$[\d.]+ \/ \$[\d.]+ /);
      expect(result.stdout).toMatch(/\ncodex +[\d.]+s \/ [\d.]+s \/ [\d.]+s +[\d.]+k \/ [\d.]+k \/ [\d.]+k +\$[\d.]+ \/ \$[\d.]+ /);
      expect(result.stdout).toMatch(/\nqwen-code +[\d.]+s \/ [\d.]+s \/ [\d.]+s +[\d.]+k \/ [\d.]+k \/ [\d.]+k +- /);
      expect(result.stdout).toMatch(/\nclaude-code +codex +6 /);
      // Each agent's identity: the version its own version command printed, and the profile's hash.
      expect(result.stdout).toMatch(/\nclaude-code +2\.1\.332 \(Claude Code\) · profile claude-code@[0-9a-f]{8} · model claude-sonnet-4-5/);
    },
    attemptBudget(18),
  );

  it(
    'mixes an external agent, the built-in agent on a model and a reference agent in one run',
    () => {
      // One cassette directory holding both recordings of js-slugify: Claude Code's and the built-in agent's.
      const cassettes = tempDir();
      for (const [dir, file] of [
        [CASSETTES, 'js-slugify/claude-code/0.jsonl'],
        [resolve('examples/cassettes/quickstart'), 'js-slugify/openai%3Agpt-4.1-mini/0.jsonl'],
      ] as const) {
        mkdirSync(dirname(join(cassettes, file)), { recursive: true });
        copyFileSync(join(dir, file), join(cassettes, file));
      }
      const out = tempDir();
      const args = [
        'run',
        TASKS,
        '--task',
        'js-slugify',
        '--agent',
        'claude-code',
        '--agent',
        'nop',
        '--model',
        'openai:gpt-4.1-mini',
        '--replay',
        cassettes,
        '--out',
        out,
      ];
      const result = crucible(args, { env: { ...NO_KEYS, CRUCIBLE_AGENT_CACHE: CACHE }, attempts: 3 });
      expect(result.status, result.stderr).toBe(1);
      expect(result.stdout).toContain('3/3 attempts: 2 passed, 1 failed, 0 errored');
      expect(result.stdout).toMatch(/\nclaude-code +openai:gpt-4\.1-mini +1 /);
      expect(result.stdout).toMatch(/\nclaude-code +nop +1 /);
    },
    attemptBudget(3),
  );

  it(
    '`agents check` says the agent works, on the bundled task, from the recording',
    () => {
      const result = crucible(['agents', 'check', 'claude-code', '--replay', CASSETTES, '--out', tempDir()], {
        env: { ...NO_KEYS, CRUCIBLE_AGENT_CACHE: CACHE },
        attempts: 1,
      });
      expect(result.status, result.stderr + result.stdout).toBe(0);
      expect(result.stdout).toMatch(/PASS/);
    },
    attemptBudget(1),
  );

  it('without a key and without --replay, the run stops before any attempt and names the variable', () => {
    const out = tempDir();
    const result = crucible(['run', TASKS, '--agent', 'claude-code', '--agent', 'codex', '--out', out], { env: { ...NO_KEYS, CRUCIBLE_AGENT_CACHE: CACHE } });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      'error --agent claude-code: ANTHROPIC_API_KEY is not set (fix: export ANTHROPIC_API_KEY=<your key>, or replay a cassette with --replay DIR)',
    );
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });
});
