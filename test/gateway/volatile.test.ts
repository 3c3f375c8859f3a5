import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalRequest, requestHash } from '../../src/infra/gateway/canonical.js';
import { cassettePath, readCassette } from '../../src/infra/gateway/index.js';
import { ReplayBook } from '../../src/infra/gateway/replay.js';
import { normaliseText, Volatility } from '../../src/infra/gateway/volatile.js';
import { useTempDirs } from '../helpers/tmp.js';
import { SCENARIOS, startFakeUpstream } from './fake-upstream.js';
import { chatRequest, geminiPath, geminiRequest, messagesRequest, post, responsesRequest, sseData, startTestGateway } from './helpers.js';

const tempDir = useTempDirs();

describe('fixed patterns', () => {
  it('normalises UUIDs, ISO times and dates, long dates and loopback ports', () => {
    expect(normaliseText('session 6f1c2a9e-4b7d-4e21-9c3a-0d5e8f7a1b2c started')).toBe('session <uuid> started');
    expect(normaliseText('at 2026-12-01T06:20:30.123Z and 2026-12-01 06:20')).toBe('at <time> and <time>');
    expect(normaliseText("Today's date is 2026-12-01.")).toBe("Today's date is <date>.");
    expect(normaliseText("Today's date is Tuesday, December 1, 2026.")).toBe("Today's date is <date>.");
    expect(normaliseText('Today is 1 December 2026; see http://127.0.0.1:43121/x and localhost:8080')).toBe(
      'Today is <date>; see http://<loopback>/x and <loopback>',
    );
  });

  it('normalises the host kernel Claude Code names in its environment block', () => {
    expect(normaliseText('Platform: linux\nOS Version: Linux 6.8.0-1019-gcp\nToday')).toBe('Platform: linux\nOS Version: <os>\nToday');
  });

  it('leaves dates inside names and versions alone', () => {
    for (const text of ['gpt-4o-mini-2024-07-18', 'claude-3-5-sonnet-20241022', 'v1.2026-12-01', 'build_2026-12-01', 'port 127.0.0.1', 'May 2026']) {
      expect(normaliseText(text)).toBe(text);
    }
  });

  it('never rewrites the model, and matches a cassette recorded before the patterns existed', () => {
    const json = {
      model: 'gpt-4o-mini-2024-07-18',
      messages: [{ role: 'user', content: 'session 6f1c2a9e-4b7d-4e21-9c3a-0d5e8f7a1b2c on 2026-11-30' }],
    };
    const raw = canonicalRequest({ upstream: 'openai', method: 'POST', pathWithQuery: '/v1/chat/completions', api: 'chat', body: Buffer.alloc(0), json });
    const volatility = new Volatility();
    const normalised = volatility.normalise(raw);
    expect(normalised['model']).toBe('gpt-4o-mini-2024-07-18');
    expect(normalised['messages']).toEqual([{ role: 'user', content: 'session <uuid> on <date>' }]);
    // An old recording: raw canonical, hash of the raw form.
    const old = new ReplayBook(
      [
        {
          type: 'exchange',
          seq: 0,
          api: 'chat',
          request: { hash: requestHash(raw), canonical: raw },
          response: { status: 200, headers: {}, body: '{}' },
          latencyMs: 1,
        },
      ],
      (c) => volatility.normalise(c),
    );
    const today = volatility.normalise({ ...raw, messages: [{ role: 'user', content: 'session 0b2e... ' }] });
    expect(old.take(requestHash(today), today)).toMatchObject({ hit: false });
    const rerun = volatility.normalise({ ...raw, messages: [{ role: 'user', content: 'session 11111111-2222-4333-8444-555555555555 on 2026-12-01' }] });
    expect(old.take(requestHash(rerun), rerun)).toMatchObject({ hit: true, loose: false });
  });
});

/** A request per API whose prompt names the workspace; the fake upstream answers with a tool call on `<workspace>/src/a.ts`. */
function steps(workspace: string, extra: string): Array<{ upstream: string; path: string; body: Record<string, unknown> }> {
  const prompt = `Working directory: ${workspace}\nFix the failing test. ${extra}`;
  return [
    { upstream: 'anthropic', path: '/v1/messages', body: messagesRequest({ stream: true, tools: true, prompt }) },
    { upstream: 'anthropic', path: '/v1/messages', body: messagesRequest({ tools: true, prompt }) },
    { upstream: 'openai', path: '/chat/completions', body: chatRequest({ stream: true, tools: true, prompt }) },
    { upstream: 'openai', path: '/responses', body: responsesRequest({ stream: true, tools: true, prompt }) },
    { upstream: 'gemini', path: geminiPath('gemini-2.5-pro', true), body: geminiRequest({ tools: true, prompt }) },
  ];
}

/** The read_file path each reply asks for, whatever its protocol. */
function askedPath(text: string): string | undefined {
  return /((?:\/[\w.-]+)+\/src\/a\.ts)/.exec(text)?.[1];
}

describe('volatile values', () => {
  it('records workspace A as its placeholder and replays it as workspace B, matching on the same hash', async () => {
    const dir = tempDir();
    const workspaceA = '/tmp/crucible-attempt-A1b2/workspace';
    const workspaceB = '/var/tmp/crucible-attempt-Zz9/other/workspace';
    const fake = await startFakeUpstream();
    const recorder = await startTestGateway(fake, { mode: 'record', cassetteDir: dir });
    const first = recorder.openSession('a', { cassette: 'task/agent/0', volatile: [{ value: workspaceA, as: '<workspace>' }] });
    // What an agent puts in its prompt that changes every run: an id, a timestamp, its own port and base URL.
    const extraA = `Session 6f1c2a9e-4b7d-4e21-9c3a-0d5e8f7a1b2c at 2026-12-01T06:20:30.123Z via http://127.0.0.1:41234 (${first.baseUrls.anthropic})`;
    for (const step of steps(workspaceA, extraA)) {
      const reply = await post(`${first.baseUrls[step.upstream]}${step.path}`, step.body);
      expect(reply.status).toBe(200);
      expect(askedPath(reply.text)).toBe(`${workspaceA}/src/a.ts`);
    }
    const recordedUsage = recorder.usage('a');
    recorder.closeSession('a');
    await recorder.close();
    await fake.close();

    const file = cassettePath(dir, 'task/agent/0');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(workspaceA);
    expect(text).toContain('<workspace>/src/a.ts');
    expect(text).not.toContain('6f1c2a9e');
    expect(text).not.toContain(first.token);
    const { exchanges } = readCassette(file);
    const firstPrompt = (exchanges[0]?.request.canonical['messages'] as Array<{ content: string }>)[0]?.content;
    expect(firstPrompt).toBe(
      'Working directory: <workspace>\nFix the failing test. Session <uuid> at <time> via http://<loopback> (http://<loopback>/s/<session>/anthropic)',
    );

    const replayer = await startTestGateway(fake, { mode: 'replay', cassetteDir: dir, env: {} });
    try {
      const second = replayer.openSession('b', { cassette: 'task/agent/0', volatile: [{ value: workspaceB, as: '<workspace>' }] });
      const extraB = `Session 0a9b8c7d-1e2f-4a3b-8c4d-5e6f7a8b9c0d at 2026-12-02T17:01:02Z via http://127.0.0.1:39999 (${second.baseUrls.anthropic})`;
      for (const [index, step] of steps(workspaceB, extraB).entries()) {
        const reply = await post(`${second.baseUrls[step.upstream]}${step.path}`, step.body);
        expect(reply.status, `step ${index}: ${reply.text.slice(0, 400)}`).toBe(200);
        expect(askedPath(reply.text), `step ${index}`).toBe(`${workspaceB}/src/a.ts`);
        expect(reply.text).not.toContain('<workspace>');
      }
      const usage = replayer.usage('b');
      expect(usage).toEqual({ ...recordedUsage, replayLooseMatches: 0 });
      expect(usage.replayMisses).toEqual([]);
      // The turns are read from what this agent received: its own workspace.
      expect(replayer.turns('b').map((t) => t.toolCalls[0]?.input)).toEqual(Array(5).fill({ path: `${workspaceB}/src/a.ts` }));
    } finally {
      await replayer.close();
    }
  });

  it('joins a value that the stream cut across two deltas, so the replay still gets its own workspace', async () => {
    const dir = tempDir();
    const workspaceA = '/tmp/crucible-attempt-A1b2/workspace';
    const workspaceB = '/home/runner/.crucible/attempts/B/workspace';
    const requests = (workspace: string) => {
      const prompt = `Working directory: ${workspace}`;
      return [
        { upstream: 'anthropic', path: '/v1/messages', body: messagesRequest({ stream: true, tools: true, prompt, model: SCENARIOS.splitPath }) },
        { upstream: 'openai', path: '/chat/completions', body: chatRequest({ stream: true, tools: true, prompt, model: SCENARIOS.splitPath }) },
        { upstream: 'openai', path: '/responses', body: responsesRequest({ stream: true, tools: true, prompt, model: SCENARIOS.splitPath }) },
      ];
    };
    const fake = await startFakeUpstream();
    const recorder = await startTestGateway(fake, { mode: 'record', cassetteDir: dir });
    const a = recorder.openSession('a', { cassette: 'split', volatile: [{ value: workspaceA, as: '<workspace>' }] });
    for (const step of requests(workspaceA)) {
      const reply = await post(`${a.baseUrls[step.upstream]}${step.path}`, step.body);
      // Live, the agent gets the upstream's bytes as they were: the path in two pieces.
      if (step.upstream === 'anthropic') expect(reply.text).not.toContain(workspaceA);
    }
    expect(recorder.turns('a').map((t) => t.toolCalls[0]?.input)).toEqual(Array(3).fill({ path: `${workspaceA}/src/a.ts` }));
    await recorder.close();
    await fake.close();

    const text = readFileSync(cassettePath(dir, 'split'), 'utf8');
    expect(text).not.toContain(workspaceA.slice(0, 20));
    const replayer = await startTestGateway(fake, { mode: 'replay', cassetteDir: dir, env: {} });
    try {
      const b = replayer.openSession('b', { cassette: 'split', volatile: [{ value: workspaceB, as: '<workspace>' }] });
      for (const step of requests(workspaceB)) {
        const reply = await post(`${b.baseUrls[step.upstream]}${step.path}`, step.body);
        expect(reply.status).toBe(200);
        expect(reply.text).not.toContain('<workspace>');
      }
      expect(replayer.turns('b').map((t) => t.toolCalls[0]?.input)).toEqual(Array(3).fill({ path: `${workspaceB}/src/a.ts` }));
      expect(replayer.usage('b').replayMisses).toEqual([]);
    } finally {
      await replayer.close();
    }
  });

  it('turns the value back in every escaping it had, and ignores values too short to be safe', () => {
    const volatility = new Volatility([
      { value: '/home/u/ws', as: '<ws>' },
      { value: '/home/u/ws/.home', as: '<home>' },
      { value: '/x', as: '<never>' },
    ]);
    const body = JSON.stringify({ input: JSON.stringify({ file: '/home/u/ws/a.ts', cfg: '/home/u/ws/.home/.config' }), path: '/x/y' });
    const recorded = volatility.toRecording({ status: 200, headers: {}, body });
    expect(recorded.body).toBe(JSON.stringify({ input: JSON.stringify({ file: '<ws>/a.ts', cfg: '<home>/.config' }), path: '/x/y' }));
    expect(new Volatility([{ value: '/srv/ws', as: '<ws>' }]).fromRecording(recorded).body).toBe(
      JSON.stringify({ input: JSON.stringify({ file: '/srv/ws/a.ts', cfg: '<home>/.config' }), path: '/x/y' }),
    );
    const events = volatility.toRecording({ status: 200, headers: {}, events: ['data: {"text":"in /home/u/ws"}\n\n'] }).events;
    expect(sseData(events?.join('') ?? '')).toEqual([{ text: 'in <ws>' }]);
  });
});
