import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mineRepository, modelInstructionWriter, type MineSummary } from '../../src/features/authoring/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { commitFiles, gitProject } from '../helpers/git-project.js';
import { useTempDirs } from '../helpers/tmp.js';
import { REPORTED, startProviderServer, type ProviderServer } from '../providers/provider-server.js';

const tempDir = useTempDirs();
const KEY = 'sk-ant-REAL-anthropic-0123456789';
const SPEC = 'anthropic:claude-sonnet-4-5';
const SOURCE = {
  message: 'Fix clamp above the range\n\nclamp returned values above hi unchanged.\n\nSigned-off-by: t <t@t>',
  failToPass: ['clamp caps values above the range'],
  messages: { 'clamp caps values above the range': 'clamp(5, 0, 3) must be 3' },
};
const WRITTEN = 'Values above the range come back unchanged from `clamp`.\n\n`clamp caps values above the range` must pass.';

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer('anthropic');
});
afterAll(async () => {
  await server.close();
});

/** Every request body that reached the provider, as one text. */
const sent = (from = 0): string =>
  server.received
    .slice(from)
    .map((r) => JSON.stringify(r.json))
    .join('\n');

describe('the model instruction writer', () => {
  it('calls the model through the metering gateway with the real provider package, records, and replays offline', async () => {
    const cassettes = tempDir();
    const before = server.received.length;
    server.queue.push({ kind: 'text', text: WRITTEN });
    const recording = modelInstructionWriter(SPEC, { mode: 'record', cassetteDir: cassettes, baseUrl: server.url, env: { ANTHROPIC_API_KEY: KEY } });
    const written = await recording.write(SOURCE, { id: 'fix-clamp', stateDir: join(tempDir(), 'answers') });
    await recording.close();
    expect(written.error).toBeUndefined();
    expect(written.text).toBe(`${WRITTEN}\n`);
    // The gateway's metering of the provider's answer, priced from the bundled table.
    const r = REPORTED.anthropic;
    expect(written.usage).toMatchObject({ inputTokens: r.input, cacheReadTokens: r.cached, outputTokens: r.output, requests: 1 });
    expect(written.usage?.costUsd).toBeGreaterThan(0);
    expect(server.received).toHaveLength(before + 1);
    const request = server.received.at(-1);
    expect(request?.path).toBe('/v1/messages');
    // The real key goes upstream from the gateway; the SDK only held the session's placeholder.
    expect(request?.headers['x-api-key']).toBe(KEY);
    // What the model saw: the problem, the body, the failing test with its message; no trailer.
    expect(sent(before)).toContain('Fix clamp above the range.');
    expect(sent(before)).toContain('clamp returned values above hi unchanged.');
    expect(sent(before)).toContain('clamp caps values above the range');
    expect(sent(before)).toContain('clamp(5, 0, 3) must be 3');
    expect(sent(before)).not.toContain('Signed-off-by');
    expect(readdirSync(cassettes, { recursive: true }).some((f) => String(f).includes('fix-clamp'))).toBe(true);

    // Replayed with no key and no provider: the same instruction, nothing reaches the server.
    const replaying = modelInstructionWriter(SPEC, { mode: 'replay', cassetteDir: cassettes, env: {} });
    const replayed = await replaying.write(SOURCE, { id: 'fix-clamp', stateDir: join(tempDir(), 'answers') });
    await replaying.close();
    expect(replayed.error).toBeUndefined();
    expect(replayed.text).toBe(written.text);
    expect(replayed.usage).toMatchObject({ inputTokens: r.input, outputTokens: r.output });
    expect(server.received).toHaveLength(before + 1);
  });

  it('takes a stored answer to the same request without calling again; a replay with no recording is an error, not an instruction', async () => {
    const answers = join(tempDir(), 'answers');
    const before = server.received.length;
    server.queue.push({ kind: 'text', text: WRITTEN });
    const live = modelInstructionWriter(SPEC, { baseUrl: server.url, env: { ANTHROPIC_API_KEY: KEY } });
    const first = await live.write(SOURCE, { id: 'fix-clamp', stateDir: answers });
    const again = await live.write(SOURCE, { id: 'fix-clamp', stateDir: answers });
    await live.close();
    expect(again).toEqual({ text: first.text, usage: first.usage, reused: true });
    expect(server.received).toHaveLength(before + 1);

    const empty = tempDir();
    const missing = modelInstructionWriter(SPEC, { mode: 'replay', cassetteDir: empty, env: {} });
    const result = await missing.write(SOURCE, { id: 'other-task', stateDir: join(tempDir(), 'answers') });
    await missing.close();
    expect(result.text).toBe('');
    expect(result.error).toMatch(/no recording of other-task/);
  });
});

const BUGGY = 'export const clamp = (x, lo, hi) => (x < lo ? lo : x);\n';
const FIXED_LINE = 'export const clamp = (x, lo, hi) => (x < lo ? lo : x > hi ? hi : x);';
const TEST_FILE = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { clamp } from '../src/math.mjs';",
  "test('clamp caps values above the range', () => assert.equal(clamp(5, 0, 3), 3, 'clamp(5, 0, 3) must be 3'));",
  "test('clamp keeps values inside', () => assert.equal(clamp(2, 0, 3), 2));",
  '',
].join('\n');

describe('crucible mine --writer provider:model', () => {
  it(
    'shows the model only the commit message and the failing tests, never the fix or the test file, and meters the call in mine.json',
    async () => {
      const repo = gitProject(join(tempDir(), 'mathlib'), {
        'package.json': JSON.stringify({ name: 'mathlib', type: 'module', scripts: { test: 'node --test' } }),
        'src/math.mjs': BUGGY,
      });
      const fix = commitFiles(
        repo,
        { 'src/math.mjs': `${FIXED_LINE}\n`, 'test/clamp.test.mjs': TEST_FILE },
        'Fix clamp above the range\n\nclamp returned values above hi unchanged.',
      );
      const dest = join(tempDir(), 'mined');
      const before = server.received.length;
      server.queue.push({ kind: 'text', text: WRITTEN });
      const mine = async (): Promise<MineSummary> => {
        const writer = modelInstructionWriter(SPEC, { baseUrl: server.url, env: { ANTHROPIC_API_KEY: KEY } });
        try {
          return await mineRepository({ repo, dest, jobs: 1, runs: 1, writer }, { stateDir: join(tempDir(), 'state'), sandbox: 'bwrap' });
        } finally {
          await writer.close();
        }
      };
      const summary = await mine();
      expect(summary.kept).toBe(1);
      const tasks = readFileSync(join(dest, 'tasks.yaml'), 'utf8');
      expect(tasks).toContain('      Values above the range come back unchanged from `clamp`.');
      expect(server.received).toHaveLength(before + 1);

      const seen = sent(before);
      expect(seen).toContain('clamp caps values above the range');
      expect(seen).toContain('clamp(5, 0, 3) must be 3');
      // No line of the fix, on either side of its diff, and no line of the test file.
      const oracle = readFileSync(join(dest, 'oracle', `${summary.entries[0]?.id ?? ''}.patch`), 'utf8');
      const diffLines = oracle
        .split('\n')
        .filter((l) => /^[+-][^+-]/.test(l))
        .map((l) => l.slice(1).trim());
      expect(diffLines).toContain(FIXED_LINE);
      for (const line of [...diffLines, ...TEST_FILE.split('\n').filter((l) => l !== '')]) expect(seen).not.toContain(JSON.stringify(line).slice(1, -1));
      expect(seen).not.toContain('x > hi ? hi');

      const entry = summary.entries.find((e) => e.sha === fix);
      expect(entry?.instruction).toMatchObject({ writer: SPEC, usage: { inputTokens: REPORTED.anthropic.input, outputTokens: REPORTED.anthropic.output } });
      expect(summary.writer).toMatchObject({ spec: SPEC, calls: 1, reused: 0, failed: 0, usage: { outputTokens: REPORTED.anthropic.output, requests: 1 } });
      expect(summary.writer?.usage.costUsd).toBeGreaterThan(0);
      expect(JSON.parse(readFileSync(join(dest, 'mine.json'), 'utf8'))).toMatchObject({ settings: { writer: SPEC }, writer: { calls: 1 } });

      // Run again: every verdict and the instruction come from the earlier run; no call, the same set.
      const again = await mine();
      expect(server.received).toHaveLength(before + 1);
      expect(again.writer).toMatchObject({ calls: 0, reused: 1, usage: { inputTokens: 0 } });
      expect(readFileSync(join(dest, 'tasks.yaml'), 'utf8')).toBe(tasks);
    },
    attemptBudget(4),
  );
});
