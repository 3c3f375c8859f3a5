import { useEffect, useState, type ReactNode } from 'react';
import { duration, elapsed, when } from '../../../src/features/report/format.js';
import { Diagnostics } from '../components/Diagnostics.js';
import { Evaluations } from '../components/Evaluations.js';
import { CountsBar } from '../components/ui.js';
import { useSource } from '../data/context.js';
import type { RunListItem } from '../data/types.js';
import { href, navigate } from '../router.js';

const PAGE = 50;
const SINCE = [
  ['', 'any time'],
  ['24h', 'last 24 hours'],
  ['7d', 'last 7 days'],
  ['30d', 'last 30 days'],
] as const;

export function RunsPage({ agent, since }: { agent: string; since: string }): ReactNode {
  const source = useSource();
  const [runs, setRuns] = useState<RunListItem[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [picked, setPicked] = useState<string[]>([]);
  const [agentInput, setAgentInput] = useState(agent);

  useEffect(() => {
    let current = true;
    setLoading(true);
    source.listRuns({ agent: agent || undefined, since: since || undefined, limit: PAGE }).then(
      (page) => {
        if (!current) return;
        setRuns(page.items);
        setNext(page.nextCursor);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current) return;
        setError(e instanceof Error ? e.message : String(e));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [agent, since]);

  const more = (): void => {
    if (!next) return;
    setLoading(true);
    source.listRuns({ agent: agent || undefined, since: since || undefined, cursor: next, limit: PAGE }).then(
      (page) => {
        setRuns((r) => [...r, ...page.items]);
        setNext(page.nextCursor);
        setLoading(false);
      },
      (e: unknown) => {
        setError(String(e));
        setLoading(false);
      },
    );
  };

  const agents = [...new Set(runs.flatMap((r) => r.agents))].sort();
  const toggle = (id: string): void => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));

  return (
    <div data-testid="runs-page">
      <header className="page-head">
        <h1>Runs</h1>
      </header>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(href([], { agent: agentInput, since }));
        }}
      >
        <label>
          agent
          <input name="agent" list="agents" value={agentInput} onChange={(e) => setAgentInput(e.target.value)} placeholder="any agent" />
          <datalist id="agents">
            {agents.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label>
          since
          <select name="since" value={since} onChange={(e) => navigate(href([], { agent, since: e.target.value }))}>
            {SINCE.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
        <button
          type="button"
          disabled={picked.length !== 2}
          onClick={() => navigate(href(['compare'], { a: picked[0], b: picked[1] }))}
          data-testid="compare-picked"
        >
          Compare {picked.length === 2 ? 'the two picked' : 'two picked runs'}
        </button>
      </form>
      {error ? <p className="error">{error}</p> : null}
      <table className="table runs">
        <thead>
          <tr>
            <th aria-label="pick" />
            <th>run</th>
            <th>kind</th>
            <th>created</th>
            <th>task set</th>
            <th>agents</th>
            <th>results</th>
            <th>passed</th>
            <th>attempts</th>
            <th>duration</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.runId}>
              <td>
                <input type="checkbox" aria-label={`pick ${r.runId}`} checked={picked.includes(r.runId)} onChange={() => toggle(r.runId)} />
              </td>
              <td>
                <a href={href(['runs', r.runId])} className="run-link">
                  {r.runId}
                </a>
                {r.live ? <span className="badge live">running</span> : null}
                {r.stoppedEarly ? <span className="badge warn-badge">stopped early</span> : null}
              </td>
              <td data-kind={r.kind ?? 'run'} className={r.kind === 'validate' ? undefined : 'muted'}>
                {r.kind ?? 'run'}
              </td>
              <td className="nowrap">{when(r.createdAt)}</td>
              <td>
                <code>{r.taskSet}</code>
              </td>
              <td>{r.agents.join(', ')}</td>
              <td>
                <CountsBar counts={r.counts} />
              </td>
              <td>
                {r.counts.PASS}/{r.attempts}
              </td>
              <td>
                {r.attempts}
                {r.attempts < r.planned ? <span className="muted"> of {r.planned}</span> : null}
              </td>
              <td>{duration(elapsed(r.createdAt, r.finishedAt))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!loading && runs.length === 0 && !error ? (
        <p className="empty">
          No runs{agent || since ? ' match these filters' : ' yet'}. Start one with <code>crucible run examples/tasks.yaml --agent oracle</code>.
        </p>
      ) : null}
      {loading ? <p className="loading">Loading…</p> : null}
      {next && !loading ? (
        <button type="button" className="more" onClick={more}>
          Load more
        </button>
      ) : null}
      <Evaluations />
      <Diagnostics />
    </div>
  );
}
