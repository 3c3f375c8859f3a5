import { describe, expect, it } from 'vitest';
import { canonical, eventHash, genesis, sealTrace, verifyChain, type TraceEvent } from '../../src/domain/trace/index.js';

const IDS = { attemptId: 'task.oracle.0.abc', runId: 'run-1' };

function events(): TraceEvent[] {
  return [
    { type: 'attempt', data: { attemptId: IDS.attemptId, runId: IDS.runId, taskId: 'task', agent: 'oracle', trial: 0, sandbox: 'bwrap' } },
    { type: 'agent', data: { stopReason: 'completed' } },
    {
      type: 'file_change',
      data: { path: 'src/a.js', kind: 'modified', binary: false, added: 1, deleted: 1, oldBlob: 'a'.repeat(40), newBlob: 'b'.repeat(40) },
    },
    { type: 'diff', data: { filesChanged: 1, added: 1, deleted: 1 } },
    { type: 'check', data: { id: 'tests', passed: true, severity: 'error', messageSha256: '0'.repeat(64) } },
    { type: 'verdict', data: { end: 'graded', verdict: 'PASS', cause: 'passed', score: 100, messageSha256: '1'.repeat(64) } },
  ];
}

const lines = (text: string): string[] => text.slice(0, -1).split('\n');
const join = (l: string[]): string => `${l.join('\n')}\n`;

function expectBad(text: string, line: number, reason: RegExp): void {
  const result = verifyChain(text);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.line).toBe(line);
  expect(result.reason).toMatch(reason);
}

describe('trace chain', () => {
  const good = sealTrace(IDS, events());

  it('seals a header that commits to the count and the last hash, and verifies', () => {
    const result = verifyChain(good);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.header.events).toBe(6);
    expect(result.header.last).toBe(result.events[5]?.hash);
    expect(result.events[0]?.prev).toBe(genesis(IDS.attemptId));
    // Every hash is the SHA-256 of the canonical event (sorted keys) with the previous hash.
    for (const e of result.events) expect(e.hash).toBe(eventHash(e));
    expect(lines(good).every((l) => canonical(JSON.parse(l)) === l)).toBe(true);
  });

  it('is deterministic: same events, same bytes', () => {
    expect(sealTrace(IDS, events())).toBe(good);
  });

  it('an edited byte anywhere fails, naming its line', () => {
    const bytes = Buffer.from(good);
    const starts: number[] = [];
    let offset = 0;
    for (const l of lines(good)) {
      starts.push(offset);
      offset += l.length + 1;
    }
    // Flip one character in the middle of every line: each is caught on that very line.
    lines(good).forEach((l, i) => {
      const at = (starts[i] ?? 0) + Math.floor(l.length / 2);
      const copy = Buffer.from(bytes);
      copy[at] = copy[at] === 0x61 ? 0x62 : 0x61;
      const result = verifyChain(copy.toString('utf8'));
      expect(result.ok, `line ${i + 1}`).toBe(false);
      if (!result.ok) expect(result.line, `line ${i + 1}`).toBe(i + 1);
    });
  });

  it('an edited value with its hash kept fails on that line', () => {
    const l = lines(good);
    const event = JSON.parse(l[5] ?? '') as { data: { passed: boolean } };
    event.data.passed = false;
    l[5] = canonical(event);
    expectBad(join(l), 6, /hash does not match/);
  });

  it('an edited value re-hashed fails on the next line (the chain breaks there)', () => {
    const l = lines(good);
    const event = JSON.parse(l[5] ?? '') as { seq: number; type: string; data: { passed: boolean }; prev: string; hash: string };
    event.data.passed = false;
    event.hash = eventHash(event);
    l[5] = canonical(event);
    expectBad(join(l), 7, /previous-hash/);
  });

  it('a dropped event fails', () => {
    const l = lines(good);
    l.splice(3, 1);
    expectBad(join(l), 4, /dropped, moved or added/);
  });

  it('a reordered pair of events fails', () => {
    const l = lines(good);
    [l[2], l[3]] = [l[3] ?? '', l[2] ?? ''];
    expectBad(join(l), 3, /dropped, moved or added/);
  });

  it('an inserted event fails, even one re-chained with the header left alone', () => {
    const l = lines(good);
    l.splice(2, 0, l[2] ?? '');
    expectBad(join(l), 4, /dropped, moved or added/);
    const longer = lines(sealTrace(IDS, [...events(), ...events().slice(-1)]));
    expectBad(join([lines(good)[0] ?? '', ...longer.slice(1)]), 8, /beyond the 6/);
  });

  it('a truncated file fails: cut mid-line or at a line end', () => {
    expectBad(good.slice(0, -10), 7, /does not end with a newline/);
    expectBad(join(lines(good).slice(0, -1)), 7, /ends after 5 event\(s\).*commits to 6/);
    expectBad('', 1, /empty/);
  });

  it('a header that does not match fails on line 1', () => {
    const other = sealTrace(IDS, events().slice(0, -1));
    expectBad(join([lines(other)[0] ?? '', ...lines(good).slice(1)]), 7, /beyond the 5/);
    const l = lines(good);
    const header = JSON.parse(l[0] ?? '') as { last: string };
    header.last = 'f'.repeat(64);
    l[0] = canonical(header);
    expectBad(join(l), 1, /last hash/);
    l[0] = canonical({ ...(JSON.parse(lines(good)[0] ?? '') as object), version: 2 });
    expectBad(join(l), 1, /version 2/);
  });

  it('a trace moved to another attempt id fails: the chain starts from the id', () => {
    const l = lines(good);
    l[0] = canonical({ ...(JSON.parse(l[0] ?? '') as object), attemptId: 'other.oracle.0' });
    expectBad(join(l), 2, /previous-hash/);
  });

  it('whitespace, extra keys and unknown event types fail', () => {
    const l = lines(good);
    expectBad(join([l[0] ?? '', ` ${l[1] ?? ''}`, ...l.slice(2)]), 2, /canonical/);
    const extra = JSON.parse(l[1] ?? '') as Record<string, unknown>;
    expectBad(join([l[0] ?? '', canonical({ ...extra, note: 'x' }), ...l.slice(2)]), 2, /exactly the keys/);
    const forged = { seq: 0, type: 'shell', data: {}, prev: genesis(IDS.attemptId) };
    expectBad(join([l[0] ?? '', canonical({ ...forged, hash: eventHash(forged) }), ...l.slice(2)]), 2, /unknown event type/);
  });
});
