import type { ReactNode } from 'react';
import { duration } from '../../../src/features/report/format.js';
import type { AttemptArtifacts } from '../data/types.js';

function offset(at: string | null, start: number | null): string {
  if (!at || start === null) return '';
  const t = Date.parse(at);
  return Number.isFinite(t) ? `+${duration(t - start)}` : '';
}

/** What the agent did, in order: messages, tool calls and their results. */
export function Trajectory({ trajectory }: { trajectory: AttemptArtifacts['trajectory'] }): ReactNode {
  if (trajectory === null) return <p className="empty">No trajectory was recorded (reference agents and some external agents do not write one).</p>;
  const first = trajectory.events.find((e) => e.at !== null)?.at ?? null;
  const start = first ? Date.parse(first) : null;
  return (
    <div data-testid="trajectory">
      <p className="muted">
        {trajectory.total} event{trajectory.total === 1 ? '' : 's'}
        {trajectory.truncated ? `, the first ${trajectory.events.length} shown` : ''}
        {trajectory.unreadableLines > 0 ? ` · ${trajectory.unreadableLines} unreadable line(s) skipped` : ''}
      </p>
      <ol className="timeline">
        {trajectory.events.map((e) => (
          <li key={e.index} className={`event event-${e.type.replace(/[^a-z_-]/gi, '')}`}>
            <div className="event-head">
              <span className="event-type">{e.type}</span>
              {e.tool ? <code className="event-toolname">{e.tool}</code> : null}
              {e.role && e.role !== e.type ? <span className="muted">{e.role}</span> : null}
              <span className="event-time">{offset(e.at, start)}</span>
              {e.durationMs !== null ? <span className="muted">{duration(e.durationMs)}</span> : null}
              {e.tokens !== null ? <span className="muted">{e.tokens} tok</span> : null}
            </div>
            {e.detail ? (
              <details>
                <summary>{e.title}</summary>
                <pre>{e.detail}</pre>
              </details>
            ) : (
              <p className="event-title">{e.title}</p>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

export function Commands({ commands }: { commands: AttemptArtifacts['commands'] }): ReactNode {
  if (commands === null || commands.total === 0) return <p className="empty">No commands were logged for this attempt.</p>;
  return (
    <div data-testid="commands">
      <p className="muted">
        {commands.total} command{commands.total === 1 ? '' : 's'} run by the agent, as the harness logged them
        {commands.truncated ? ` (first ${commands.items.length} shown)` : ''}.
      </p>
      <table className="table">
        <thead>
          <tr>
            <th>at</th>
            <th>command</th>
            <th>exit</th>
            <th>time</th>
          </tr>
        </thead>
        <tbody>
          {commands.items.map((c, i) => (
            <tr key={i}>
              <td className="nowrap">{c.at.slice(11, 23)}</td>
              <td>
                <code>{c.argv.join(' ')}</code>
              </td>
              <td className={c.exitCode === 0 ? '' : 'warn'}>{c.timedOut ? 'timeout' : (c.exitCode ?? '–')}</td>
              <td>{duration(c.durationMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
