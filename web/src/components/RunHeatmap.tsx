import { useEffect, useState, type ReactNode } from 'react';
import { Heatmap } from '../charts/Heatmap.js';
import { useSource } from '../data/context.js';
import type { CellView } from '../data/types.js';

/** Tasks per page of the heatmap: a run of thousands of tasks loads them as the reader asks. */
const TASKS_PER_PAGE = 50;

/** A run's task × agent heatmap, paged by tasks from the source: never every cell of a large run at once. */
export function RunHeatmap({ runId, agents }: { runId: string; agents: string[] }): ReactNode {
  const source = useSource();
  const [cells, setCells] = useState<CellView[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  const load = (cursor: string | undefined, replace: boolean, current: () => boolean): void => {
    setLoading(true);
    source.listCells(runId, { limit: TASKS_PER_PAGE, ...(cursor ? { cursor } : {}) }).then(
      (page) => {
        if (!current()) return;
        setCells((prev) => (replace ? page.items : [...prev, ...page.items]));
        setNext(page.nextCursor);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current()) return;
        setError(String(e));
        setLoading(false);
      },
    );
  };

  useEffect(() => {
    let current = true;
    load(undefined, true, () => current);
    return () => {
      current = false;
    };
  }, [runId]);

  const shownTasks = new Set(cells.map((c) => c.taskId)).size;
  return (
    <div data-testid="heatmap">
      {error ? <p className="error">{error}</p> : null}
      {cells.length > 0 ? <Heatmap agents={agents} cells={cells} /> : null}
      {loading ? <p className="loading">Loading…</p> : null}
      {next && !loading ? (
        <p className="muted">
          First {shownTasks} tasks.{' '}
          <button type="button" className="more" onClick={() => load(next, false, () => true)}>
            Show {TASKS_PER_PAGE} more tasks
          </button>
        </p>
      ) : null}
    </div>
  );
}
