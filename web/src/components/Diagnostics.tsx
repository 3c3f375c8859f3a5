import type { ReactNode } from 'react';
import { when } from '../../../src/features/report/format.js';
import { useSource } from '../data/context.js';
import { useData } from '../data/use-data.js';
import { Await, Section, VerdictBadge } from './ui.js';

/** `crucible diagnostics` reports (mutation audit, ablation, fuzz, matrix stress), newest first. */
export function Diagnostics(): ReactNode {
  const source = useSource();
  const data = useData(() => source.listDiagnostics(), 'diagnostics');
  if (source.mode === 'static') return null;
  return (
    <Section title="Diagnostics" note="How well the grader itself detects what it should: docs/diagnostics.md.">
      <Await data={data}>
        {({ items }) =>
          items.length === 0 ? (
            <p className="muted">
              None yet: <code>crucible diagnostics mutations</code> adds one.
            </p>
          ) : (
            <table className="table" data-testid="diagnostics">
              <thead>
                <tr>
                  <th>result</th>
                  <th>kind</th>
                  <th>id</th>
                  <th>summary</th>
                  <th>created</th>
                  <th>report</th>
                </tr>
              </thead>
              <tbody>
                {items.map((d) => {
                  const md = source.diagnosticUrl(d, 'report.md');
                  const json = source.diagnosticUrl(d, 'report.json');
                  return (
                    <tr key={`${d.kind}/${d.id}`}>
                      <td>{d.ok === undefined ? <span className="muted">—</span> : <VerdictBadge verdict={d.ok ? 'PASS' : 'FAIL'} />}</td>
                      <td>{d.kind}</td>
                      <td>
                        <code>{d.id}</code>
                      </td>
                      <td>{d.summary}</td>
                      <td className="nowrap">{d.createdAt ? when(d.createdAt) : ''}</td>
                      <td className="nowrap">
                        {md ? <a href={md}>report.md</a> : null} {json ? <a href={json}>report.json</a> : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )
        }
      </Await>
    </Section>
  );
}
