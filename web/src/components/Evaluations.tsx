import { useState, type ReactNode } from 'react';
import { when } from '../../../src/features/report/format.js';
import { useSource } from '../data/context.js';
import type { EvaluationKind } from '../data/types.js';
import { useData } from '../data/use-data.js';
import { href } from '../router.js';
import { Await, Section, VerdictBadge } from './ui.js';

const KINDS: readonly [EvaluationKind | '', string][] = [
  ['', 'ci and gate'],
  ['ci', 'ci only'],
  ['gate', 'gates only'],
];

/** `crucible ci` and `crucible gate` results from the history, next to the runs they judged. */
export function Evaluations(): ReactNode {
  const source = useSource();
  const [kind, setKind] = useState<EvaluationKind | ''>('');
  const data = useData(() => source.listEvaluations({ ...(kind ? { kind } : {}), limit: 20 }), `evaluations|${kind}`);
  if (source.mode === 'static') return null;
  return (
    <Section title="CI and gate results" note="Newest first; reports are in each result's directory on this machine.">
      <label className="filters">
        show
        <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as EvaluationKind | '')} data-testid="evaluations-kind">
          {KINDS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <Await data={data}>
        {({ items }) =>
          items.length === 0 ? (
            <p className="muted">
              None recorded{kind ? ` of kind ${kind}` : ''}: <code>crucible ci</code> and <code>crucible gate</code> add them.
            </p>
          ) : (
            <table className="table" data-testid="evaluations">
              <thead>
                <tr>
                  <th>result</th>
                  <th>kind</th>
                  <th>id</th>
                  <th>title</th>
                  <th>finished</th>
                  <th>report</th>
                </tr>
              </thead>
              <tbody>
                {items.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <VerdictBadge verdict={e.verdict} />
                    </td>
                    <td>{e.kind}</td>
                    <td>
                      <code>{e.id}</code>
                      {e.runId ? (
                        <>
                          {' '}
                          <a href={href(['runs', e.runId])}>{e.runId}</a>
                        </>
                      ) : null}
                    </td>
                    <td>{e.title}</td>
                    <td className="nowrap">{when(e.createdAt)}</td>
                    <td>
                      <code>{e.reportDir}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Await>
    </Section>
  );
}
