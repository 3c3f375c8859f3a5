import type { ReactNode } from 'react';
import type { CheckResult } from '../data/types.js';
import { SeverityBadge } from './ui.js';

const ORDER: Record<string, number> = { critical: 0, error: 1, warning: 2, info: 3 };

export function Checks({ checks }: { checks: CheckResult[] }): ReactNode {
  if (checks.length === 0) return <p className="empty">No policy checks were recorded for this attempt.</p>;
  const sorted = [...checks].sort((a, b) => Number(a.passed) - Number(b.passed) || (ORDER[a.severity] ?? 9) - (ORDER[b.severity] ?? 9));
  return (
    <table className="table checks" data-testid="checks">
      <thead>
        <tr>
          <th>check</th>
          <th>severity</th>
          <th>result</th>
          <th>message and evidence</th>
        </tr>
      </thead>
      <tbody>
        {sorted.map((c, i) => (
          <tr key={`${c.id}-${i}`} className={c.passed ? '' : 'row-fail'}>
            <td>
              <code>{c.id}</code>
            </td>
            <td>
              <SeverityBadge severity={c.severity} />
            </td>
            <td>{c.passed ? <span className="ok">pass</span> : <strong className="fail">fail</strong>}</td>
            <td>
              {c.message}
              {Object.keys(c.evidence).length > 0 ? (
                <details>
                  <summary>evidence</summary>
                  <pre>{JSON.stringify(c.evidence, null, 2)}</pre>
                </details>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
