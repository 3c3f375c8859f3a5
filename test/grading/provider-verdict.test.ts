import { describe, expect, it } from 'vitest';
import { grade, PROVIDER_FAILURE_THRESHOLD, providerFailure } from '../../src/domain/grading/index.js';
import type { AgentResult, CheckResult, ProviderHealth } from '../../src/core/types/index.js';
import { CHECK_IDS } from '../../src/core/types/index.js';

/** Every check passing, except the ids given (all of severity error, test_tampering critical). */
function checks(failing: string[] = []): CheckResult[] {
  return CHECK_IDS.map((id) => ({
    id,
    passed: !failing.includes(id),
    severity: id === 'test_tampering' ? 'critical' : id === 'held_out' ? 'info' : 'error',
    message: failing.includes(id) ? `${id} failed` : `${id} ok`,
    evidence: id === 'held_out' && !failing.includes(id) ? { skipped: true } : {},
  }));
}

function health(over: Partial<ProviderHealth>): ProviderHealth {
  return { name: 'openai', requests: 3, answered: 0, failed: 3, byKind: { status: 3 }, retryWaitMs: 0, ...over };
}

const lastFailed = health({ last: { seq: 2, ok: false, status: 500, failure: 'status', detail: 'HTTP 500' } });
const crashed = (provider: ProviderHealth): AgentResult => ({ stopReason: 'error', error: 'the agent failed (exit 1)', provider });

describe('provider_error', () => {
  it('an attempt whose last model request failed at the provider is ERROR provider_error, unscored, whatever the agent made of it', () => {
    const result = grade({ checks: checks(['tests', 'no_changes']), agentResult: crashed(lastFailed) });
    expect(result).toEqual({
      verdict: 'ERROR',
      cause: 'provider_error',
      message: 'model provider failed: the last model request failed at openai (status: HTTP 500); 3 of 3 model request(s) failed at openai (status 3)',
    });
    // The builtin agent's own "provider still failing" harness error is the provider's too.
    const builtin = grade({
      checks: checks(['tests']),
      agentResult: { stopReason: 'error', errorKind: 'harness', error: 'still failing', provider: lastFailed },
    });
    expect(builtin.cause).toBe('provider_error');
    // Not a pass either: a pass under a failing provider would count what the failures left out.
    expect(grade({ checks: checks(), agentResult: { stopReason: 'end_turn', provider: lastFailed } }).cause).toBe('provider_error');
  });

  it('tampering and policy violations are the agent’s, provider or not', () => {
    expect(grade({ checks: checks(['tests', 'test_tampering']), agentResult: crashed(lastFailed) }).cause).toBe('tampered');
    expect(grade({ checks: checks(['tests', 'scope']), agentResult: crashed(lastFailed) }).cause).toBe('policy_violation');
  });

  it('past the threshold the provider decided the attempt even if its last answer came through; under it, the agent did', () => {
    const { minFailed } = PROVIDER_FAILURE_THRESHOLD;
    const answeredLast = { seq: 9, ok: true, status: 200 };
    const over = health({ requests: minFailed * 2 - 1, answered: minFailed - 1, failed: minFailed, last: answeredLast });
    expect(providerFailure(over)).toContain('past the threshold');
    expect(grade({ checks: checks(['tests']), agentResult: { stopReason: 'end_turn', provider: over } }).cause).toBe('provider_error');
    const half = health({ requests: minFailed * 2, answered: minFailed, failed: minFailed, last: answeredLast });
    expect(providerFailure(half)).toBeUndefined();
    const few = health({ requests: minFailed - 1, answered: 0, failed: minFailed - 1, last: answeredLast });
    expect(providerFailure(few)).toBeUndefined();
    expect(grade({ checks: checks(['tests']), agentResult: { stopReason: 'end_turn', provider: half } }).cause).toBe('tests_failed');
  });

  it('a 429 the agent gave up on is the provider’s; a 400 last is the agent’s', () => {
    const limited = health({ failed: 0, byKind: { rate_limited: 3 }, last: { seq: 2, ok: false, status: 429, failure: 'rate_limited' } });
    expect(grade({ checks: checks(['tests']), agentResult: crashed(limited) }).cause).toBe('provider_error');
    const badRequest = health({ failed: 0, byKind: {}, last: { seq: 2, ok: false, status: 400 } });
    expect(grade({ checks: checks(['tests']), agentResult: crashed(badRequest) }).cause).toBe('agent_crashed');
  });
});

describe('a replay miss', () => {
  it('is a cassette error (harness_error) that names the first difference, not the agent crashing', () => {
    const agentResult: AgentResult = {
      stopReason: 'error',
      error: 'the agent failed (exit 1)',
      replay: { looseMatches: 0, misses: 1, firstMiss: 'replay miss: … first differs at messages[0].content' },
    };
    const result = grade({ checks: checks(['tests', 'no_changes']), agentResult });
    expect(result).toMatchObject({ verdict: 'ERROR', cause: 'harness_error' });
    expect(result.message).toBe('cassette error: 1 model request(s) have no recording; replay miss: … first differs at messages[0].content');
    expect(grade({ checks: checks(['tests', 'test_tampering']), agentResult }).cause).toBe('tampered');
  });
});
