import { useState, type ReactNode } from 'react';
import { interval, pairedSentence, pct, points, when } from '../../../src/features/report/format.js';
import { BaselineCompare } from '../components/BaselineCompare.js';
import { Await, IntervalBar, Section } from '../components/ui.js';
import { useSource } from '../data/context.js';
import type { CellDelta, CompareView } from '../data/types.js';
import { useData } from '../data/use-data.js';
import { href, navigate } from '../router.js';

function cellText(c: CellDelta['a']): string {
  if (!c) return '–';
  return c.n === 0 ? `${c.errors} err` : `${c.passes}/${c.n}`;
}

const CHANGE_CLASS: Record<string, string> = { worse: 'fail', better: 'ok' };

function CompareBody({ view }: { view: CompareView }): ReactNode {
  const { comparison } = view;
  return (
    <div data-testid="compare-page">
      <Section title="Paired verdict" note="Per agent, over the tasks both runs scored: a change of task mix cannot pass for a change of agent.">
        <ul className="paired" data-testid="compare-verdicts">
          {comparison.pairs.map((p) => {
            const c = p.comparison;
            const label = p.agentA === p.agentB ? p.agentA : `${p.agentA} (A) vs ${p.agentB} (B)`;
            return (
              <li key={`${p.agentA}|${p.agentB}`} className={c.verdict === 'not separated' ? 'not-separated' : 'separated'}>
                <strong>{label}:</strong> {pairedSentence({ ...c, a: 'run A', b: 'run B' })}
              </li>
            );
          })}
        </ul>
        {comparison.notes.length > 0 ? (
          <ul className="notes">
            {comparison.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        ) : null}
      </Section>
      <Section title="Pass rates">
        <table className="table">
          <thead>
            <tr>
              <th>agent</th>
              <th>run A</th>
              <th>run B</th>
            </tr>
          </thead>
          <tbody>
            {view.rates.map((g) => (
              <tr key={g.agent}>
                <th scope="row">{g.agent}</th>
                {[g.a, g.b].map((s, i) => (
                  <td key={i}>
                    {s ? (
                      <>
                        <strong>{pct(s.rate)}</strong> <IntervalBar rate={s.rate} low={s.low} high={s.high} width={90} />{' '}
                        <span className="muted">
                          {interval(s.low, s.high)} n={s.n}
                        </span>
                      </>
                    ) : (
                      <span className="muted">not in run</span>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section
        title={`Cells (${view.totals?.regressions ?? comparison.regressions.length} worse, ${view.totals?.improvements ?? comparison.improvements.length} better)`}
        note={
          view.totals
            ? `One cell is a handful of trials: trust the paired verdict over any single row. The ${comparison.cells.length} of ${view.totals.cells} cells shown are the changed ones first; \`crucible compare\` lists them all.`
            : 'One cell is a handful of trials: trust the paired verdict over any single row.'
        }
      >
        <table className="table" data-testid="compare-cells">
          <thead>
            <tr>
              <th>task</th>
              <th>agent</th>
              <th>run A</th>
              <th>run B</th>
              <th>B − A</th>
              <th>change</th>
            </tr>
          </thead>
          <tbody>
            {comparison.cells.map((c) => (
              <tr key={`${c.taskId}|${c.agent}`}>
                <td>
                  <code>{c.taskId}</code>
                </td>
                <td>{c.agent}</td>
                <td>{cellText(c.a)}</td>
                <td>{cellText(c.b)}</td>
                <td>{points(c.delta)}</td>
                <td className={CHANGE_CLASS[c.change] ?? 'muted'}>{c.change}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </div>
  );
}

function Picker({ a, b }: { a: string; b: string }): ReactNode {
  const source = useSource();
  const runs = useData(() => source.listRuns({ limit: 100 }), 'compare-picker');
  const [ra, setA] = useState(a);
  const [rb, setB] = useState(b);
  const options = runs.state === 'ready' ? runs.value.items : [];
  const pick = (label: string, name: string, value: string, set: (v: string) => void): ReactNode => (
    <label key={name}>
      {label}
      <select name={name} value={value} onChange={(e) => set(e.target.value)}>
        <option value="">choose a run</option>
        {options.map((r) => (
          <option key={r.runId} value={r.runId}>
            {r.runId} · {when(r.createdAt)} · {r.agents.join(', ')}
          </option>
        ))}
        {value && !options.some((r) => r.runId === value) ? <option value={value}>{value}</option> : null}
      </select>
    </label>
  );
  return (
    <form
      className="filters"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(href(['compare'], { a: ra, b: rb }));
      }}
    >
      {pick('run A (baseline)', 'a', ra, setA)}
      {pick('run B', 'b', rb, setB)}
      <button type="submit" disabled={!ra && !rb}>
        Compare
      </button>
    </form>
  );
}

export function ComparePage({ a, b }: { a: string; b: string }): ReactNode {
  const source = useSource();
  const ready = a !== '' && b !== '';
  const data = useData(() => (ready ? source.compare(a, b) : Promise.resolve(null)), `${a}|${b}`);
  return (
    <div>
      <header className="page-head">
        <h1>Compare runs</h1>
        {ready ? (
          <p className="meta">
            A = <a href={href(['runs', a])}>{a}</a> · B = <a href={href(['runs', b])}>{b}</a>
          </p>
        ) : (
          <p className="muted">Pick two runs here, or tick two on the runs page.</p>
        )}
      </header>
      <Picker a={a} b={b} />
      {ready ? <Await data={data}>{(view) => (view ? <CompareBody view={view} /> : null)}</Await> : null}
      {source.mode === 'api' ? <BaselineCompare runId={b || a} /> : null}
    </div>
  );
}
