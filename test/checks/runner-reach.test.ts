import { describe, expect, it } from 'vitest';
import { runnerReachCheck } from '../../src/domain/checks/runner-reach.js';
import type { SentinelEvidence, SentinelFinding } from '../../src/core/types/index.js';
import { input, run } from './helpers.js';

const finding = (over: Partial<SentinelFinding> = {}): SentinelFinding => ({
  event: 'gc',
  detail: 'gc.get_objects with code of the change running',
  file: 'stats.py',
  line: 12,
  pid: 7,
  ...over,
});
const seen = (over: Partial<SentinelEvidence> = {}): SentinelEvidence => ({ processes: 1, runners: 1, unfinished: [], findings: [], ...over });

describe('runner_reach judges the sentinel channel alone', () => {
  it('passes a run whose sentinel heard the runner and nothing else', () => {
    const outcome = runnerReachCheck.run(input({ tests: run({ sentinel: seen({ processes: 2 }) }) }));
    expect(outcome.passed).toBe(true);
    expect(outcome.message).toMatch(/2 Python process/);
  });

  it('passes a run with no sentinel at all (a Node task)', () => {
    expect(runnerReachCheck.run(input({ tests: run() })).passed).toBe(true);
  });

  it('fails on a finding of the main or the held-out run, naming the event, file and line', () => {
    const main = runnerReachCheck.run(input({ tests: run({ sentinel: seen({ findings: [finding()] }) }) }));
    expect(main.passed).toBe(false);
    expect(main.message).toMatch(/gc \(gc\.get_objects .*\) at stats\.py:12/);
    const heldOut = runnerReachCheck.run(
      input({ tests: run({ sentinel: seen() }), heldOut: run({ sentinel: seen({ findings: [finding({ event: 'import', file: '' })] }) }) }),
    );
    expect(heldOut.passed).toBe(false);
    expect((heldOut.evidence.findings as { items: Array<{ run: string }> }).items[0]?.run).toBe('held_out');
  });

  it('leaves out what the baseline run reported too: the repository did it, not the change', () => {
    const rerun = finding({ event: 'rerun', detail: 'started the test runner again: python -m pytest', file: 'tests/test_cli.py', line: 3 });
    const outcome = runnerReachCheck.run(
      input({ baselineTests: run({ sentinel: seen({ findings: [rerun] }) }), tests: run({ sentinel: seen({ findings: [rerun] }) }) }),
    );
    expect(outcome.passed).toBe(true);
  });

  it('fails on a runner that never finished in a run that ended normally, and not in one that timed out or was killed', () => {
    expect(runnerReachCheck.run(input({ tests: run({ sentinel: seen({ unfinished: [7] }) }) })).passed).toBe(false);
    expect(runnerReachCheck.run(input({ tests: run({ timedOut: true, exitCode: null, sentinel: seen({ unfinished: [7] }) }) })).passed).toBe(true);
    expect(runnerReachCheck.run(input({ tests: run({ exitCode: null, sentinel: seen({ unfinished: [7] }) }) })).passed).toBe(true);
    expect(runnerReachCheck.run(input({ tests: run({ limitExceeded: 'memory', sentinel: seen({ unfinished: [7] }) }) })).passed).toBe(true);
  });

  it('fails on lines the sentinel never writes, and on a run that went silent when the baseline run was heard', () => {
    expect(runnerReachCheck.run(input({ tests: run({ sentinel: seen({ garbled: 1 }) }) })).passed).toBe(false);
    const silent = runnerReachCheck.run(input({ baselineTests: run({ sentinel: seen() }), tests: run() }));
    expect(silent.passed).toBe(false);
    expect(silent.message).toMatch(/silent/);
  });
});
