import { useState, type ReactNode } from 'react';
import { duration } from '../../../src/features/report/format.js';
import type { TestCaseResult, TestGroupOutcome, TestRunEvidence } from '../data/types.js';

function Group({ label, group, hint }: { label: string; group: TestGroupOutcome; hint: string }): ReactNode {
  if (group.total === 0 && group.failing.length === 0) return null;
  const ok = group.passed === group.total && group.failing.length === 0;
  return (
    <div className={`test-group ${ok ? 'group-ok' : 'group-fail'}`}>
      <h4>
        {label}{' '}
        <span className="count">
          {group.passed}/{group.total}
        </span>
      </h4>
      <p className="muted">{hint}</p>
      {group.failing.length > 0 ? (
        <ul>
          {group.failing.map((f) => (
            <li key={f.id}>
              <code>{f.id}</code> <span className="fail">{f.reason}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function Run({ title, run }: { title: string; run: TestRunEvidence }): ReactNode {
  return (
    <div className="test-run">
      <h3>{title}</h3>
      <p className="muted">
        <code>{run.command}</code> · exit {run.exitCode ?? '–'}
        {run.timedOut ? ' (timed out)' : ''} · {run.parsed} cases parsed · {duration(run.durationMs)}
        {run.consistent ? '' : ' · report and exit code disagree'}
      </p>
      {run.invalidReason ? <p className="error">Invalid as evidence: {run.invalidReason}</p> : null}
      <div className="test-groups">
        <Group label="fail-to-pass" group={run.failToPass} hint="failed before the fix; must pass now" />
        <Group label="pass-to-pass" group={run.passToPass} hint="passed before; must still pass" />
      </div>
      {run.outputTail ? (
        <details>
          <summary>output (tail)</summary>
          <pre>{run.outputTail}</pre>
        </details>
      ) : null}
    </div>
  );
}

function CaseList({ cases }: { cases: TestCaseResult[] }): ReactNode {
  const [only, setOnly] = useState<'all' | 'failed'>('all');
  const shown = only === 'failed' ? cases.filter((c) => c.status !== 'passed') : cases;
  return (
    <div>
      <label className="inline">
        <input type="checkbox" checked={only === 'failed'} onChange={(e) => setOnly(e.target.checked ? 'failed' : 'all')} /> only failed and skipped
      </label>
      <table className="table">
        <tbody>
          {shown.map((c, i) => (
            <tr key={`${c.id}-${i}`}>
              <td className={`status-${c.status}`}>{c.status}</td>
              <td>
                <code>{c.id}</code>
                {c.message ? <div className="muted">{c.message}</div> : null}
              </td>
              <td className="nowrap">{duration(c.durationMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Tests({
  tests,
  heldOut,
  cases,
  heldOutCases,
}: {
  tests?: TestRunEvidence;
  heldOut?: TestRunEvidence;
  cases: TestCaseResult[] | null;
  heldOutCases: TestCaseResult[] | null;
}): ReactNode {
  if (!tests && !heldOut) return <p className="empty">The tests did not run for this attempt.</p>;
  return (
    <div data-testid="tests">
      {tests ? <Run title="Tests" run={tests} /> : null}
      {heldOut ? <Run title="Held-out tests (never shown to the agent)" run={heldOut} /> : null}
      {cases && cases.length > 0 ? (
        <details className="cases">
          <summary>All {cases.length} test cases from the JUnit report</summary>
          <CaseList cases={cases} />
        </details>
      ) : null}
      {heldOutCases && heldOutCases.length > 0 ? (
        <details className="cases">
          <summary>All {heldOutCases.length} held-out test cases</summary>
          <CaseList cases={heldOutCases} />
        </details>
      ) : null}
    </div>
  );
}
