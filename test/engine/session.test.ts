import { describe, expect, it } from 'vitest';
import { inSession, openSession } from '../../src/engine/session.js';
import { TestSignals } from '../helpers/cli.js';

describe('a run session', () => {
  it('stops on the first Ctrl-C, kills on the second, then stops listening', () => {
    const signals = new TestSignals();
    const stages: string[] = [];
    const session = openSession(signals, { onSignal: (stage, signal) => stages.push(`${stage} ${signal}`) });
    expect([session.stop.aborted, session.kill.aborted, session.interrupted]).toEqual([false, false, false]);
    signals.send('SIGINT');
    expect([session.stop.aborted, session.kill.aborted, session.interrupted]).toEqual([true, false, true]);
    signals.send('SIGINT');
    expect(session.kill.aborted).toBe(true);
    // A third Ctrl-C is the process's own again.
    expect(signals.listening()).toBe(0);
    expect(stages).toEqual(['stop SIGINT', 'kill SIGINT']);
  });

  it('kills at once on SIGTERM, unless told a SIGTERM drains like Ctrl-C (a worker)', () => {
    const run = new TestSignals();
    const a = openSession(run);
    run.send('SIGTERM');
    expect([a.stop.aborted, a.kill.aborted, run.listening()]).toEqual([true, true, 0]);

    const worker = new TestSignals();
    const b = openSession(worker, { terminate: 'stop' });
    worker.send('SIGTERM');
    expect([b.stop.aborted, b.kill.aborted]).toEqual([true, false]);
    worker.send('SIGTERM');
    expect(b.kill.aborted).toBe(true);
  });

  it('leaves no listener behind however the work ends', async () => {
    const signals = new TestSignals();
    await expect(
      inSession(signals, async () => {
        expect(signals.listening()).toBe(2);
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(signals.listening()).toBe(0);
    expect(await inSession(signals, async (session) => session.interrupted)).toBe(false);
    expect(signals.listening()).toBe(0);
  });
});
