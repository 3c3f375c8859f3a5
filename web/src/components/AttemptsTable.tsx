import { useEffect, useState, type ReactNode } from 'react';
import { duration, usd } from '../../../src/features/report/format.js';
import { useSource } from '../data/context.js';
import type { AttemptListItem, Cause, RunStats, Verdict } from '../data/types.js';
import { href } from '../router.js';
import { CauseTag, VerdictBadge } from './ui.js';

const PAGE = 50;
const count = (c: { passed: number; total: number } | null): string => (c ? `${c.passed}/${c.total}` : '–');

export interface AttemptFilter {
  agent?: string;
  taskId?: string;
  verdict?: Verdict;
  cause?: Cause;
}

interface AttemptsTableProps {
  runId: string;
  stats: RunStats | null;
  /** The run's task ids for the filter (the dashboard's); else read from the stats' cells (a report). */
  tasks?: string[];
  /** More tasks than `tasks` lists: the filter takes a typed task id. */
  tasksTruncated?: boolean;
  initial?: AttemptFilter;
}

/** The run's attempts, filtered and paged from the source: never the whole run at once. */
export function AttemptsTable({ runId, stats, tasks: listed, tasksTruncated = false, initial = {} }: AttemptsTableProps): ReactNode {
  const source = useSource();
  const [filter, setFilter] = useState<AttemptFilter>(initial);
  const [items, setItems] = useState<AttemptListItem[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const key = JSON.stringify(filter);

  useEffect(() => {
    let current = true;
    setLoading(true);
    source.listAttempts(runId, { ...filter, limit: PAGE }).then(
      (page) => {
        if (!current) return;
        setItems(page.items);
        setNext(page.nextCursor);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current) return;
        setError(String(e));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [runId, key]);

  const more = (): void => {
    if (!next) return;
    setLoading(true);
    source.listAttempts(runId, { ...filter, cursor: next, limit: PAGE }).then(
      (page) => {
        setItems((prev) => [...prev, ...page.items]);
        setNext(page.nextCursor);
        setLoading(false);
      },
      (e: unknown) => {
        setError(String(e));
        setLoading(false);
      },
    );
  };

  const agents = stats ? stats.agents.map((a) => a.agent) : [];
  const tasks = listed ?? (stats ? [...new Set(stats.cells.map((c) => c.taskId))] : []);
  const causes = stats ? (Object.keys(stats.agents[0]?.causes ?? {}) as Cause[]).filter((c) => stats.agents.some((a) => a.causes[c] > 0)) : [];
  const set = (k: keyof AttemptFilter) => (e: { target: { value: string } }) =>
    setFilter((f) => ({ ...f, [k]: e.target.value === '' ? undefined : e.target.value }));

  return (
    <div className="attempts" data-testid="attempts">
      <div className="filters">
        <label>
          agent
          <select value={filter.agent ?? ''} onChange={set('agent')} name="agent">
            <option value="">all</option>
            {agents.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label>
          task
          {tasksTruncated ? (
            <input value={filter.taskId ?? ''} onChange={set('taskId')} name="task" placeholder="all (type a task id)" />
          ) : (
            <select value={filter.taskId ?? ''} onChange={set('taskId')} name="task">
              <option value="">all</option>
              {tasks.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </label>
        <label>
          verdict
          <select value={filter.verdict ?? ''} onChange={set('verdict')} name="verdict">
            <option value="">all</option>
            <option>PASS</option>
            <option>FAIL</option>
            <option>ERROR</option>
          </select>
        </label>
        <label>
          cause
          <select value={filter.cause ?? ''} onChange={set('cause')} name="cause">
            <option value="">all</option>
            {causes.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
      </div>
      {error ? <p className="error">{error}</p> : null}
      <table className="table">
        <thead>
          <tr>
            <th>result</th>
            <th>task</th>
            <th>agent</th>
            <th>trial</th>
            <th>cause</th>
            <th>F2P</th>
            <th>P2P</th>
            <th>held-out</th>
            <th>checks</th>
            <th>cost</th>
            <th>time</th>
          </tr>
        </thead>
        <tbody>
          {items.map((a) => (
            <tr key={a.attemptId}>
              <td>
                <VerdictBadge verdict={a.verdict} />
              </td>
              <td>
                <a href={href(['attempts', a.attemptId])} className="attempt-link">
                  {a.taskId}
                </a>
              </td>
              <td>{a.agent}</td>
              <td>{a.trial}</td>
              <td title={a.message}>
                <CauseTag cause={a.cause} />
              </td>
              <td>{count(a.failToPass)}</td>
              <td>{count(a.passToPass)}</td>
              <td>{count(a.heldOut)}</td>
              <td>{a.failedCheckCount > 0 ? <span className="warn">{a.failedCheckCount} failed</span> : 'ok'}</td>
              <td>{usd(a.costUsd)}</td>
              <td>{duration(a.totalMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!loading && items.length === 0 ? <p className="empty">No attempt matches.</p> : null}
      {loading ? <p className="loading">Loading…</p> : null}
      {next && !loading ? (
        <button type="button" onClick={more} className="more">
          Load more
        </button>
      ) : null}
    </div>
  );
}
