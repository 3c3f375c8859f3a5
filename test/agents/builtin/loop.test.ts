import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { pricingFromTable } from '../../../src/infra/gateway/index.js';
import { NUDGE } from '../../../src/domain/agents/builtin/prompt.js';
import { useTempDirs } from '../../helpers/tmp.js';
import { answer, call, runScripted, say, toolResultsSeen, USAGE } from './helpers.js';

const tempDir = useTempDirs();

function apiError(statusCode: number, body: unknown, headers: Record<string, string> = {}): APICallError {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://127.0.0.1/v1/responses',
    requestBodyValues: {},
    statusCode,
    responseHeaders: { 'content-type': 'application/json', ...headers },
    responseBody: JSON.stringify(body),
  });
}

describe('the built-in loop', () => {
  it('reads, edits, tests and submits; every turn is in the trajectory', async () => {
    const root = tempDir();
    const { result, events, model } = await runScripted(root, [
      [say('Looking.'), call('c1', 'read_file', { path: 'greeting.txt' })],
      [call('c2', 'edit_file', { path: 'greeting.txt', old_string: 'world', new_string: 'there' })],
      [call('c3', 'run_tests', {})],
      [call('c4', 'submit', { summary: 'greeting changed' })],
    ]);
    expect(result).toMatchObject({ stopReason: 'submitted', turns: 4, toolCalls: 4 });
    expect(result.usage).toMatchObject({ inputTokens: 400, outputTokens: 40, cacheReadTokens: 120, reasoningTokens: 8, requests: 4 });
    expect(readFileSync(join(root, 'attempt/workspace/greeting.txt'), 'utf8')).toBe('hello there\n');
    expect(toolResultsSeen(model, 2)['c1']).toEqual({ type: 'text', value: 'hello world' });
    expect(toolResultsSeen(model, 4)['c3']?.value).toMatch(/1 passed\n\[tests exited with code 0\]$/);
    expect(events.map((e) => e.type)).toEqual(['start', 'turn', 'tool', 'turn', 'tool', 'turn', 'tool', 'turn', 'tool', 'end']);
    expect(events[1]).toMatchObject({ type: 'turn', turn: 1, text: 'Looking.', toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'greeting.txt' } }] });
    expect(events.at(-1)).toMatchObject({ type: 'end', stopReason: 'submitted', summary: 'greeting changed' });
    // Test time is counted apart from other tool time.
    expect(result.timings?.testMs).toBeGreaterThan(0);
  });

  it('sends tool errors back to the model and carries on', async () => {
    const root = tempDir();
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    const { result, model } = await runScripted(root, [
      async () => {
        // Planted before the first answer, inside the workspace, pointing out of it.
        symlinkSync(outside, join(root, 'attempt/workspace/link'));
        return answer([
          call('e1', 'edit_file', { path: 'greeting.txt', old_string: 'goodbye', new_string: 'x' }),
          call('e2', 'edit_file', { path: 'src/a.py', old_string: '', new_string: 'x' }),
          call('e3', 'read_file', { path: '../outside/secret.txt' }),
          call('e4', 'read_file', { path: 'link/secret.txt' }),
          call('e5', 'write_file', { path: 'link/new.txt', content: 'escaped' }),
          call('e6', 'read_file', { pat: 1 }),
          call('e7', 'launch_missiles', {}),
          call('e8', 'read_file', { path: 'missing.txt' }),
        ]);
      },
      [call('c9', 'submit', { summary: 'gave up' })],
    ]);
    expect(result.stopReason).toBe('submitted');
    expect(result.toolCalls).toBe(9);
    const seen = toolResultsSeen(model, 2);
    expect(Object.values(seen).every((r) => r.type === 'error-text')).toBe(true);
    expect(seen['e1']?.value).toMatch(/old_string was not found in greeting.txt/);
    expect(seen['e2']?.value).toMatch(/old_string is empty/);
    expect(seen['e3']?.value).toMatch(/outside the repository/);
    expect(seen['e4']?.value).toMatch(/through a symbolic link/);
    expect(seen['e5']?.value).toMatch(/through a symbolic link/);
    expect(seen['e6']?.value).toMatch(/Invalid input for tool read_file/);
    expect(seen['e7']?.value).toMatch(/unavailable tool 'launch_missiles'/);
    expect(seen['e8']?.value).toMatch(/No such file/);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });

  it('nudges once after a text-only reply, then accepts a second one as the end', async () => {
    const { result, events, model } = await runScripted(tempDir(), [[say('I think it is fine.')], [say('Really, it is fine.')]]);
    expect(result).toMatchObject({ stopReason: 'end_turn', turns: 2, toolCalls: 0 });
    expect(events.map((e) => e.type)).toEqual(['start', 'turn', 'nudge', 'turn', 'end']);
    const lastPrompt = model.doGenerateCalls[1]?.prompt.at(-1);
    expect(lastPrompt).toEqual({ role: 'user', content: [{ type: 'text', text: NUDGE }] });
  });

  it('goes on when the nudge works', async () => {
    const { result } = await runScripted(tempDir(), [[say('Done, I believe.')], [call('s', 'submit', { summary: 'ok' })]]);
    expect(result).toMatchObject({ stopReason: 'submitted', turns: 2 });
  });

  it('stops at max turns', async () => {
    const listForever = Array.from({ length: 10 }, (_, i) => [call(`l${i}`, 'list_files', {})]);
    const { result, model } = await runScripted(tempDir(), listForever, { limits: { maxTurns: 3 } });
    expect(result).toMatchObject({ stopReason: 'max_turns', turns: 3 });
    expect(model.doGenerateCalls).toHaveLength(3);
  });

  it('stops when the token budget is spent, before asking the model again', async () => {
    const listForever = Array.from({ length: 10 }, (_, i) => [call(`l${i}`, 'list_files', {})]);
    const { result, model } = await runScripted(tempDir(), listForever, { limits: { maxTurns: 50, maxTokens: 200 } });
    // 110 tokens a turn: 220 ≥ 200 after the second.
    expect(result).toMatchObject({ stopReason: 'budget_exceeded', turns: 2, error: 'token budget reached (220 of 200)' });
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('stops when the cost budget is spent, priced from the pricing table', async () => {
    const pricing = pricingFromTable(new Map([['mock-model', { input: 1000, output: 1000, cacheRead: 100 }]]));
    const listForever = Array.from({ length: 10 }, (_, i) => [call(`l${i}`, 'list_files', {})]);
    const { result } = await runScripted(tempDir(), listForever, {
      limits: { maxTurns: 50, maxCostUsd: 0.2 },
      costOf: (u) => pricing.costOf('mock-model', u),
    });
    // Per turn: 70 uncached + 10 out at $1000/M, 30 cached at $100/M = $0.083.
    expect(result).toMatchObject({ stopReason: 'budget_exceeded', turns: 3 });
    expect(result.usage?.costUsd).toBeCloseTo(0.249, 9);
  });

  it('stops with timeout when its signal is aborted mid-call', async () => {
    const controller = new AbortController();
    const { result } = await runScripted(
      tempDir(),
      [
        async (options) =>
          new Promise((_, reject) => {
            options.abortSignal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
            controller.abort();
          }),
      ],
      { signal: controller.signal },
    );
    // The call never answered: a request, and no turn.
    expect(result).toMatchObject({ stopReason: 'timeout', turns: 0 });
    expect(result.usage?.requests).toBe(1);
  });

  it('recognises a context overflow', async () => {
    const overflow = apiError(400, {
      error: { message: "This model's maximum context length is 128000 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' },
    });
    const { result } = await runScripted(tempDir(), [overflow]);
    expect(result).toMatchObject({ stopReason: 'context_exceeded', error: "This model's maximum context length is 128000 tokens." });
  });

  it("ends on a non-retryable error; a bad key is the harness's fault, a bad request the agent's", async () => {
    const badKey = await runScripted(tempDir(), [apiError(401, { error: { message: 'Incorrect API key provided' } })]);
    expect(badKey.result).toMatchObject({ stopReason: 'error', errorKind: 'harness' });
    const badRequest = await runScripted(tempDir(), [apiError(400, { error: { message: 'Invalid schema for function' } })]);
    expect(badRequest.result).toMatchObject({ stopReason: 'error', error: 'model call failed (400): Invalid schema for function' });
    expect(badRequest.result.errorKind).toBeUndefined();
  });

  it('retries 429, 5xx and malformed responses, recording the wait apart from model time', async () => {
    const waits: number[] = [];
    const malformed = new APICallError({ message: 'Invalid JSON response', url: 'u', requestBodyValues: {}, statusCode: 200, responseBody: '{"id":' });
    const { result, events } = await runScripted(
      tempDir(),
      [
        apiError(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '7' }),
        apiError(503, { error: { message: 'overloaded' } }),
        malformed,
        [call('s', 'submit', { summary: 'ok' })],
      ],
      { sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toMatchObject({ stopReason: 'submitted', turns: 1 });
    // retry-after when given, else exponential backoff from 1s.
    expect(waits).toEqual([7000, 2000, 4000]);
    expect(result.timings?.rateLimitWaitMs).toBe(13_000);
    expect(result.usage?.requests).toBe(4);
    const turn = events.find((e) => e.type === 'turn');
    expect(turn).toMatchObject({
      retries: [
        { status: 429, waitMs: 7000, error: 'Rate limit reached' },
        { status: 503, waitMs: 2000 },
        { status: 200, waitMs: 4000 },
      ],
    });
  });

  it('gives up after the retries, as a harness error', async () => {
    const broken = Array.from({ length: 3 }, () => apiError(500, { error: { message: 'The server had an error' } }));
    const { result } = await runScripted(tempDir(), broken, { retry: { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 100 } });
    // Three requests failed at the provider: none of them is a turn.
    expect(result).toMatchObject({ stopReason: 'error', errorKind: 'harness', turns: 0 });
    expect(result.usage?.requests).toBe(3);
    expect(result.error).toMatch(/still failing after 3 tries \(500\): The server had an error/);
  });

  it("takes the gateway's 402 as budget_exceeded", async () => {
    const refused = apiError(
      402,
      { error: { message: 'crucible gateway: token budget reached (5000 of 5000)', type: 'insufficient_quota', code: 'budget_exceeded' } },
      { 'x-crucible-gateway-error': 'budget_exceeded' },
    );
    const { result } = await runScripted(tempDir(), [refused]);
    expect(result).toMatchObject({ stopReason: 'budget_exceeded', error: 'crucible gateway: token budget reached (5000 of 5000)' });
  });

  it('shows the model the `not ok` lines of a long TAP run, wherever they are, and records them in the trajectory', async () => {
    // 3,000 TAP results with one failure in the middle: far past the tool's 20,000-character budget.
    const testCommand = `i=1; while [ $i -le 3000 ]; do if [ $i -eq 1234 ]; then echo "not ok $i - greeting says hello there"; else echo "ok $i - case number $i"; fi; i=$((i+1)); done; echo "# fail 1"; exit 1`;
    const { model, events } = await runScripted(tempDir(), [[call('t1', 'run_tests', {})]], { testCommand });
    const seen = String(toolResultsSeen(model, 2)['t1']?.value);
    expect(seen.length).toBeLessThan(20_100);
    expect(seen).toContain('ok 1233 - case number 1233\nnot ok 1234 - greeting says hello there\nok 1235 - case number 1235');
    expect(seen).toMatch(
      /\[… [\d,]+ of 3,001 lines cut, 1 failure line kept; run the failing tests alone with bash to see all their output …\]\n\[tests exited with code 1\]$/,
    );
    expect(seen).not.toContain('at the end');
    const tool = events.find((e) => e.type === 'tool' && e.id === 't1');
    expect(tool && 'output' in tool ? tool.output : '').toContain('not ok 1234 - greeting says hello there');
  });

  it('caps run_tests at --max-test-runs', async () => {
    const { result, model } = await runScripted(tempDir(), [[call('t1', 'run_tests', {})], [call('t2', 'run_tests', {})]], { maxTestRuns: 1 });
    expect(result.stopReason).toBe('submitted');
    expect(toolResultsSeen(model, 3)['t2']).toEqual({ type: 'error-text', value: expect.stringMatching(/at most 1 times/) });
  });

  it('truncates long output with the full size, and kills commands at their timeout', async () => {
    const { model, events } = await runScripted(tempDir(), [
      [call('b1', 'bash', { command: 'head -c 50000 /dev/zero | tr "\\0" "x"' }), call('b2', 'bash', { command: 'sleep 5', timeout_seconds: 1 })],
    ]);
    const seen = toolResultsSeen(model, 2);
    expect(seen['b1']?.value).toMatch(/\[… 1 of 1 lines cut|characters cut/);
    expect(String(seen['b1']?.value).length).toBeLessThan(21_000);
    expect(seen['b2']?.value).toMatch(/timed out after 1s and killed/);
    const tool = events.find((e) => e.type === 'tool' && e.id === 'b1');
    expect(tool).toMatchObject({ outputChars: expect.any(Number) });
    expect(tool && 'output' in tool ? tool.output.length : 0).toBeLessThan(2100);
  });

  it('sends the same requests on every run: no paths, times or ids', async () => {
    const turns = () => [[call('r', 'run_tests', {}), call('p', 'bash', { command: 'pwd; echo $HOME' })]];
    const a = await runScripted(tempDir(), turns(), { testCommand: 'echo "ok (0.51ms) in 0.04s"; pwd' });
    const b = await runScripted(tempDir(), turns(), { testCommand: 'echo "ok (0.93ms) in 0.07s"; pwd' });
    const prompts = [a, b].map((r) => JSON.stringify(r.model.doGenerateCalls.map((c) => c.prompt)));
    expect(prompts[0]).toBe(prompts[1]);
    expect(prompts[0]).toContain('ok (<t>ms) in <t>s\\n.');
    expect(USAGE.inputTokens.total).toBe(100);
  });
});
