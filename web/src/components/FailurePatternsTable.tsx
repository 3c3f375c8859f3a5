import { useState, type ReactNode } from 'react';
import { pct } from '../../../src/features/report/format.js';
import { useSource } from '../data/context.js';
import type { RunView } from '../data/types.js';
import { href } from '../router.js';

type PatternRow = NonNullable<RunView['failurePatterns']>[number]['patterns'][number];

/** A pattern's attempt links: the first ones as the run page carries them, the rest a page at a time on request. */
function PatternAttempts({ runId, agent, pattern }: { runId: string; agent: string; pattern: PatternRow }): ReactNode {
  const source = useSource();
  const [ids, setIds] = useState<string[]>(pattern.attemptIds);
  const [cursor, setCursor] = useState<string | null>(pattern.count > pattern.attemptIds.length ? String(pattern.attemptIds.length) : null);
  const [error, setError] = useState<string | null>(null);
  const more = (): void => {
    if (cursor === null) return;
    source.listPatternIds(runId, agent, pattern.id, { cursor, limit: 100 }).then(
      (page) => {
        setIds((prev) => [...prev, ...page.items]);
        setCursor(page.nextCursor);
      },
      (e: unknown) => setError(String(e)),
    );
  };
  return (
    <>
      <ul>
        {ids.map((id) => (
          <li key={id}>
            <a href={href(['attempts', id])} className="pattern-attempt-link">
              {id}
            </a>
          </li>
        ))}
      </ul>
      {error ? <p className="error">{error}</p> : null}
      {/* The server lists a pattern's first ids only; the count says how many show it. */}
      {cursor !== null ? (
        <p className="muted">
          and {pattern.count - ids.length} more{' '}
          <button type="button" className="more" onClick={more}>
            Show more
          </button>
        </p>
      ) : null}
    </>
  );
}

/** What each agent's failed attempts did (docs/failure-patterns.md): the Markdown report's columns, each pattern's attempts as a count that opens into their links. */
export function FailurePatternsTable({ runId, patterns }: { runId: string; patterns: NonNullable<RunView['failurePatterns']> }): ReactNode {
  const unrecorded = patterns.filter((a) => (a.unrecorded ?? 0) > 0);
  return (
    <>
      <table className="table" data-testid="failure-patterns">
        <thead>
          <tr>
            <th>agent</th>
            <th>pattern</th>
            <th title="Failed attempts that show the pattern, of the agent's failed attempts it could be read on (a pattern about the session needs a trajectory)">
              failed attempts
            </th>
            <th title="Share of the agent's failed attempts, Wilson 95% interval">share</th>
            <th>attempts</th>
          </tr>
        </thead>
        <tbody>
          {patterns.flatMap((a) =>
            a.patterns.map((p) => (
              <tr key={`${a.agent}\u0000${p.id}`}>
                <th scope="row">{a.agent}</th>
                <td>{p.label}</td>
                <td>
                  {p.count} of {p.share.n}
                </td>
                <td>
                  {pct(p.share.rate)} [{pct(p.share.low)}, {pct(p.share.high)}]
                </td>
                <td>
                  {/* Folded: a run's failures list hundreds of ids, which as one paragraph hide the table. */}
                  <details className="pattern-attempts">
                    <summary>
                      {p.count} attempt{p.count === 1 ? '' : 's'}
                    </summary>
                    <PatternAttempts runId={runId} agent={a.agent} pattern={p} />
                  </details>
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
      {unrecorded.length > 0 ? (
        <p className="muted" data-testid="failure-patterns-unrecorded">
          Without a trajectory (a reference agent, or a patch graded from elsewhere), so read for their diff, commands and stop only:{' '}
          {unrecorded.map((a) => `${a.agent} ${a.unrecorded} of ${a.failed}`).join(', ')}.
        </p>
      ) : null}
    </>
  );
}
