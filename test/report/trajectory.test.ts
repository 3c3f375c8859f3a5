import { describe, expect, it } from 'vitest';
import { parseCommands, parseTrajectory } from '../../src/features/report/trajectory.js';

const at = '2026-11-30T09:30:00.000Z';
const usage = { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

/** Lines in the documented shape of the built-in agent's trajectory (src/domain/agents/builtin/trajectory.ts). */
const builtin = [
  { type: 'start', v: 1, t: 0, at, model: 'openai:gpt-4.1-mini', system: 'You are…', instruction: 'Fix median()', tools: ['read_file', 'bash'], limits: {} },
  {
    type: 'turn',
    t: 812,
    at,
    turn: 1,
    text: 'Let me look.',
    toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'stats.py' } }],
    finishReason: 'tool-calls',
    usage,
    modelMs: 790,
  },
  { type: 'tool', t: 830, at, turn: 1, id: 'c1', name: 'read_file', input: { path: 'stats.py' }, ok: true, output: 'def median…', outputChars: 5210, ms: 14 },
  { type: 'nudge', t: 900, at, turn: 2, text: 'Run the tests before you submit.' },
  { type: 'end', t: 4100, at, stopReason: 'submitted', turns: 6, toolCalls: 9, summary: 'Fixed the even case.' },
];

describe('trajectory for the timeline', () => {
  it("maps the built-in agent's events field by field", () => {
    const parsed = parseTrajectory(builtin.map((e) => JSON.stringify(e)).join('\n'));
    expect(parsed).toMatchObject({ total: 5, truncated: false, unreadableLines: 0 });
    const [start, turn, tool, nudge, end] = parsed.events;
    expect(start).toMatchObject({ type: 'start', title: 'openai:gpt-4.1-mini · tools: read_file, bash' });
    expect(start?.detail).toContain('Fix median()');
    expect(turn).toMatchObject({ type: 'turn', role: 'assistant', tool: 'read_file', title: 'turn 1: Let me look.', durationMs: 790, tokens: 1280 });
    expect(turn?.detail).toContain('→ read_file {"path":"stats.py"}');
    expect(tool).toMatchObject({ type: 'tool', tool: 'read_file', durationMs: 14, title: '← read_file {"path":"stats.py"}' });
    expect(tool?.detail).toContain('5210 characters, abbreviated');
    expect(nudge?.title).toBe('nudge: Run the tests before you submit.');
    expect(end).toMatchObject({ title: 'stopped: submitted after 6 turns, 9 tool calls', detail: 'Fixed the even case.' });
  });

  it("keeps a tool's failure lines in the detail even after a long input", () => {
    const content = Array.from({ length: 120 }, (_, i) => `line ${i} of a file the agent wrote`).join('\n');
    const output = ['TAP version 13', ...Array.from({ length: 40 }, (_, i) => (i === 20 ? 'not ok 21 - median of an even list' : `ok ${i + 1} - case`))].join(
      '\n',
    );
    const event = {
      type: 'tool',
      t: 1,
      at,
      turn: 1,
      id: 'w',
      name: 'bash',
      input: { command: 'cat > a.py', content },
      ok: true,
      output,
      outputChars: output.length,
      ms: 3,
    };
    const [tool] = parseTrajectory(JSON.stringify(event)).events;
    expect(tool?.detail?.length).toBeLessThanOrEqual(4000);
    expect(tool?.detail).toContain('not ok 21 - median of an even list');
    // The long input line is shortened from both ends; the output stays whole.
    expect(tool?.detail).toMatch(/ok 40 - case\n\[… all [\d,]+ lines kept, 1 failure line kept, long lines shortened …\]$/);
    expect(tool?.detail).toMatch(/line 0 of a file.* \[… [\d,]+ characters cut …\] .*line 119 of a file the agent wrote/);
  });

  it('reads other agents generically, skips torn lines and bounds the count', () => {
    const lines = ['{"role":"user","content":[{"type":"text","text":"hi"}]}', '{"kind":"exec","args":["ls"]}', '{"type":"turn","t":1', '42', ''];
    const parsed = parseTrajectory(lines.join('\n'));
    expect(parsed.total).toBe(2);
    expect(parsed.unreadableLines).toBe(2);
    expect(parsed.events[0]).toMatchObject({ type: 'message', role: 'user', title: 'hi' });
    expect(parsed.events[1]).toMatchObject({ type: 'exec', title: 'ls' });
    const many = Array.from({ length: 30 }, (_, i) => JSON.stringify({ type: 'x', n: i })).join('\n');
    expect(parseTrajectory(many, 10)).toMatchObject({ total: 30, truncated: true });
    expect(parseTrajectory(many, 10).events).toHaveLength(10);
  });

  it('reads the harness command log', () => {
    const log = [
      JSON.stringify({
        at,
        argv: ['git', 'apply', '-'],
        cwd: '/w',
        envNames: [],
        network: 'none',
        exitCode: 0,
        signal: null,
        timedOut: false,
        truncated: false,
        durationMs: 49,
      }),
      'oops',
    ];
    expect(parseCommands(log.join('\n'))).toEqual({
      items: [{ at, argv: ['git', 'apply', '-'], exitCode: 0, timedOut: false, durationMs: 49 }],
      total: 1,
      truncated: false,
    });
  });
});
