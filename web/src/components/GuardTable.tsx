import type { ReactNode } from 'react';
import { detectionRange } from '../../../src/features/report/format.js';
import type { RunView } from '../data/types.js';

/** `--guard` runs: what the online guard saw per agent, the same columns as the Markdown report's section. */
export function GuardTable({ counts }: { counts: NonNullable<RunView['guard']> }): ReactNode {
  return (
    <table className="table" data-testid="guard">
      <thead>
        <tr>
          <th>agent</th>
          <th>mode</th>
          <th title="Attempts with at least one finding (an incident.json) of the attempts the guard watched">attempts with incidents</th>
          <th>findings</th>
          <th title="Attempts whose agent enforce stopped on a filesystem finding">stopped</th>
          <th title="Commands refused before they ran (enforce)">blocked commands</th>
          <th title="Findings recorded and let run">audit-only</th>
          <th title="Fastest–slowest time from the write or command to its detection">time to detection</th>
        </tr>
      </thead>
      <tbody>
        {counts.map((c) => (
          <tr key={c.agent}>
            <th scope="row">{c.agent}</th>
            <td>{c.mode}</td>
            <td className={c.incidents > 0 ? 'warn' : undefined}>
              {c.incidents} of {c.attempts}
            </td>
            <td>{c.findings}</td>
            <td>{c.stopped}</td>
            <td>{c.blocked}</td>
            <td>{c.auditOnly}</td>
            <td>{detectionRange(c)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
