import { describe, expect, it } from 'vitest';
import { grade, score } from '../../src/domain/grading/index.js';
import type { AgentResult, CheckResult, Severity } from '../../src/core/types/index.js';
import { CHECK_IDS } from '../../src/core/types/index.js';

const SEVERITY: Record<string, Severity> = {
  tests: 'error',
  regression: 'error',
  held_out: 'info',
  no_changes: 'error',
  test_tampering: 'critical',
  secrets: 'critical',
  diff_size: 'warning',
};

/** Every check passing, except the ids given. */
function checks(failing: string[] = [], severities: Record<string, Severity> = {}): CheckResult[] {
  return CHECK_IDS.map((id) => ({
    id,
    passed: !failing.includes(id),
    severity: severities[id] ?? SEVERITY[id] ?? 'error',
    message: failing.includes(id) ? `${id} failed` : `${id} ok`,
    // A task without held-out tests: the check says so and is left out of the message.
    evidence: id === 'held_out' && !failing.includes(id) ? { skipped: true } : {},
  }));
}

const completed: AgentResult = { stopReason: 'completed' };

describe('grade', () => {
  it('passes when no error or critical check failed, whatever the agent stop and the warnings', () => {
    expect(grade({ checks: checks(), agentResult: completed })).toEqual({ verdict: 'PASS', cause: 'passed', message: 'tests ok', score: 100 });
    const warned = grade({ checks: checks(['diff_size', 'held_out']), agentResult: { stopReason: 'timeout' } });
    expect(warned).toMatchObject({ verdict: 'PASS', cause: 'passed', score: 95, message: 'tests ok; held_out failed' });
  });

  // The precedence, top to bottom: each row adds a failure that must outrank every row below it.
  const ladder: Array<{ cause: string; failing: string[]; agent?: AgentResult }> = [
    { cause: 'tests_failed', failing: ['tests'] },
    { cause: 'regression', failing: ['tests', 'regression'] },
    { cause: 'no_changes', failing: ['tests', 'regression', 'no_changes'] },
    { cause: 'agent_timeout', failing: ['tests', 'regression', 'no_changes'], agent: { stopReason: 'timeout', error: 'too slow' } },
    { cause: 'policy_violation', failing: ['tests', 'regression', 'no_changes', 'scope'], agent: { stopReason: 'timeout' } },
    { cause: 'tampered', failing: ['tests', 'regression', 'no_changes', 'scope', 'test_tampering'], agent: { stopReason: 'timeout' } },
  ];
  it.each(ladder)('$cause outranks every cause below it', ({ cause, failing, agent }) => {
    const result = grade({ checks: checks(failing), agentResult: agent ?? completed });
    expect(result.cause).toBe(cause);
    expect(result.verdict).toBe('FAIL');
  });

  it('harness errors outrank everything and carry no score', () => {
    const result = grade({
      checks: checks(['test_tampering', 'tests']),
      agentResult: { stopReason: 'error', errorKind: 'harness', error: 'rate limit retries exhausted' },
    });
    expect(result).toEqual({ verdict: 'ERROR', cause: 'harness_error', message: 'agent infrastructure failed: rate limit retries exhausted' });
  });

  it('maps each abnormal agent stop to its cause, only when something failed', () => {
    const stops: Array<[AgentResult['stopReason'], string]> = [
      ['timeout', 'agent_timeout'],
      ['max_turns', 'max_turns'],
      ['budget_exceeded', 'budget_exceeded'],
      ['context_exceeded', 'context_exceeded'],
      ['error', 'agent_crashed'],
    ];
    for (const [stopReason, cause] of stops) expect(grade({ checks: checks(['tests']), agentResult: { stopReason } }).cause).toBe(cause);
  });

  it("gives a patch git refused (crucible grade) a cause of its own, still the model's FAIL; git that never ran is the harness's", () => {
    const refused = grade({
      checks: checks(['tests', 'no_changes']),
      agentResult: { stopReason: 'error', errorKind: 'patch', error: 'the patch does not apply: x' },
    });
    expect(refused).toMatchObject({ verdict: 'FAIL', cause: 'patch_not_applied' });
    const harness = grade({
      checks: checks(['tests', 'no_changes']),
      agentResult: { stopReason: 'error', errorKind: 'harness', error: 'the patch: git apply did not run to the end (ENOENT)' },
    });
    expect(harness).toMatchObject({ verdict: 'ERROR', cause: 'harness_error' });
  });

  it('a required held-out failure is tests_failed; a failing check at warning or info never fails', () => {
    expect(grade({ checks: checks(['held_out'], { held_out: 'error' }), agentResult: completed })).toMatchObject({
      verdict: 'FAIL',
      cause: 'tests_failed',
      message: 'held_out failed',
    });
    expect(grade({ checks: checks(['secrets'], { secrets: 'warning' }), agentResult: completed }).verdict).toBe('PASS');
  });

  it('names the most severe policy violation', () => {
    const result = grade({ checks: checks(['scope', 'secrets']), agentResult: completed });
    expect(result).toMatchObject({ cause: 'policy_violation', message: 'secrets: secrets failed' });
  });
});

describe('score', () => {
  it('starts at 100 and loses 0/5/25/50 per failed info/warning/error/critical check, never below 0', () => {
    expect(score(checks())).toBe(100);
    expect(score(checks(['held_out']))).toBe(100);
    expect(score(checks(['diff_size']))).toBe(95);
    expect(score(checks(['tests', 'no_changes']))).toBe(50);
    expect(score(checks(['test_tampering', 'secrets', 'tests']))).toBe(0);
  });
});
