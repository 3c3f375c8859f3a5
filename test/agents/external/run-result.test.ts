import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAgentOutput } from '../../../src/domain/agents/external/outputs/index.js';
import { externalAgentResult } from '../../../src/domain/agents/external/result.js';
import type { ExecResult } from '../../../src/infra/sandbox/executor.js';
import type { ModelTurn } from '../../../src/infra/gateway/index.js';

const lines = (...objects: unknown[]): string => `${objects.map((o) => JSON.stringify(o)).join('\n')}\n`;
const exited = (exitCode: number | null, stdout: string, stderr: string): ExecResult => ({
  exitCode,
  signal: exitCode === null ? 'SIGKILL' : null,
  stdout,
  stderr,
  truncated: false,
  timedOut: false,
  durationMs: 10,
});

/**
 * What the real `codex exec --json` printed when every answer to its first request was cut short
 * (test/fixtures/agents/outputs/README.md): five retries reported as `error`, then the failed turn;
 * its stderr holds a warning and its stdin banner.
 */
const OUTPUTS = resolve('test/fixtures/agents/outputs');
const CODEX_STREAM_LOST = readFileSync(join(OUTPUTS, 'codex-stream-cut.stdout'), 'utf8');
const CODEX_STDERR = readFileSync(join(OUTPUTS, 'codex-stream-cut.stderr'), 'utf8');

describe('externalAgentResult', () => {
  it("explains a failure with the agent's own failure message, not the banner on its stderr", () => {
    const parsed = parseAgentOutput('codex-json', CODEX_STREAM_LOST);
    expect(CODEX_STDERR).toContain('Reading additional input from stdin...');
    const result = externalAgentResult(exited(1, CODEX_STREAM_LOST, CODEX_STDERR), parsed, false, []);
    expect(result).toMatchObject({
      stopReason: 'error',
      error: 'the agent failed (exit 1): stream disconnected before completion: stream closed before response.completed',
    });
    // The text says what happened; it does not decide whose fault it is (no harness or task kind).
    expect(result.errorKind).toBeUndefined();
  });

  it("reads Claude Code's error result as its message", () => {
    const stdout = lines({ type: 'result', subtype: 'error_during_execution', is_error: true, num_turns: 1, result: 'API Error: 500 overloaded' });
    const result = externalAgentResult(exited(1, stdout, 'some warning\n'), parseAgentOutput('claude-stream-json', stdout), false, []);
    expect(result.error).toBe('the agent failed (exit 1): API Error: 500 overloaded');
  });

  it('falls back to the end of stderr, then of stdout, when the output names no failure', () => {
    expect(externalAgentResult(exited(2, 'partial\n', 'Error: boom\n'), parseAgentOutput('codex-json', 'partial\n'), false, []).error).toBe(
      'the agent failed (exit 2): Error: boom',
    );
    expect(externalAgentResult(exited(null, 'last words\n', ''), parseAgentOutput('text', 'last words\n'), false, []).error).toBe(
      'the agent failed (killed by SIGKILL): last words',
    );
  });

  it('counts no turn and no tool call of a request whose answer never completed (a stalled stream cut, the client stopped on it)', () => {
    const turn = (seq: number, extra: Partial<ModelTurn>): ModelTurn => ({
      seq,
      api: 'messages',
      at: '2026-01-01T00:00:00.000Z',
      status: 200,
      toolCalls: [{ id: `t${seq}`, name: 'bash', input: {} }],
      latencyMs: 1,
      ...extra,
    });
    const metered = [turn(0, {}), turn(1, { failure: 'stalled', unfinished: true }), turn(2, { unfinished: true })];
    const result = externalAgentResult({ ...exited(null, '', ''), timedOut: true }, parseAgentOutput('text', ''), false, metered);
    expect(result).toMatchObject({ turns: 1, toolCalls: 1, stopReason: 'timeout' });
  });

  it('keeps the classification on the harness evidence whatever the agent says', () => {
    const parsed = parseAgentOutput('codex-json', CODEX_STREAM_LOST);
    // The program never started: the sandbox's report makes it the harness's, whatever stdout holds.
    const notStarted = externalAgentResult({ ...exited(127, CODEX_STREAM_LOST, 'sh: codex: not found\n'), notStarted: 'ENOENT' }, parsed, false, []);
    expect(notStarted).toMatchObject({ stopReason: 'error', errorKind: 'harness' });
    expect(notStarted.error).toContain('ENOENT');
    // Exit 0 is the agent's own end, whatever it reported on the way.
    expect(externalAgentResult(exited(0, CODEX_STREAM_LOST, ''), parsed, false, [])).toEqual({ turns: 0, toolCalls: 0, stopReason: 'end_turn' });
    // A timeout is a timeout.
    expect(externalAgentResult({ ...exited(null, CODEX_STREAM_LOST, ''), timedOut: true }, parsed, false, []).stopReason).toBe('timeout');
  });
});
