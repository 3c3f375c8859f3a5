import { describe, expect, it } from 'vitest';
import { parseJUnit } from '../../src/domain/evidence/junit.js';
import { renderJUnit } from '../../src/features/report/junit.js';
import { attempt, sampleAttempts } from './fixtures.js';

describe('JUnit report of a run', () => {
  it('has one testcase per attempt, read back by our own JUnit parser', () => {
    const attempts = sampleAttempts();
    const parsed = parseJUnit(renderJUnit('run-1', attempts));
    expect(parsed.error).toBeUndefined();
    // Suites group attempts by agent, so compare as sets of (id, status).
    const expected = attempts.map((a) => `${a.agent}::${a.taskId} #${a.trial} ${a.verdict === 'PASS' ? 'passed' : 'failed'}`);
    expect(parsed.cases.map((c) => `${c.id} ${c.status}`).sort()).toEqual(expected.sort());
  });

  it('uses the cause as the failure message', () => {
    const parsed = parseJUnit(renderJUnit('run-1', sampleAttempts()));
    const failed = parsed.cases.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.message).sort()).toEqual(['harness_error', 'policy_violation', 'tests_failed']);
  });

  it('survives names and messages that are not XML-safe', () => {
    const nasty = attempt({ taskId: 'x<&>"\'', agent: 'a\u0001b', verdict: 'FAIL', message: ']]> \uD800 </failure>' });
    const parsed = parseJUnit(renderJUnit('r', [nasty]));
    expect(parsed.error).toBeUndefined();
    expect(parsed.cases).toHaveLength(1);
    expect(parsed.cases[0]?.id).toBe('a\uFFFDb::x<&>"\' #0');
  });

  it('counts tests, failures and errors per suite', () => {
    const xml = renderJUnit('r', sampleAttempts());
    expect(xml).toMatch(/<testsuites name="crucible r" tests="6" failures="2" errors="1"/);
    expect(xml).toMatch(/<testsuite name="oracle" tests="3" failures="0" errors="1"/);
  });
});
