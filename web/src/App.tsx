import type { ReactNode } from 'react';
import { useSource } from './data/context.js';
import { href, useRoute } from './router.js';
import { AttemptPage } from './pages/AttemptPage.js';
import { ComparePage } from './pages/ComparePage.js';
import { RunPage } from './pages/RunPage.js';
import { RunsPage } from './pages/RunsPage.js';
import { TrendsPage } from './pages/TrendsPage.js';
import { useData } from './data/use-data.js';

function StaticHome(): ReactNode {
  const source = useSource();
  const runs = useData(() => source.listRuns({}), 'static-home');
  if (runs.state !== 'ready') return null;
  const run = runs.value.items[0];
  return run ? <RunPage runId={run.runId} /> : <p className="empty">This report holds no run.</p>;
}

export function App(): ReactNode {
  const source = useSource();
  const route = useRoute();
  const [head, id] = route.path;
  const isStatic = source.mode === 'static';
  let page: ReactNode;
  if (head === 'runs' && id) page = <RunPage runId={id} />;
  else if (head === 'attempts' && id) page = <AttemptPage attemptId={id} tab={route.query.get('tab') ?? 'overview'} />;
  else if (head === 'compare' && !isStatic) page = <ComparePage a={route.query.get('a') ?? ''} b={route.query.get('b') ?? ''} />;
  else if (head === 'trends' && !isStatic)
    page = (
      <TrendsPage
        bucket={route.query.get('bucket') === 'run' ? 'run' : 'day'}
        agent={route.query.get('agent') ?? ''}
        taskId={route.query.get('task') ?? ''}
        perTask={route.query.get('perTask') === '1'}
      />
    );
  else page = isStatic ? <StaticHome /> : <RunsPage agent={route.query.get('agent') ?? ''} since={route.query.get('since') ?? ''} />;

  return (
    <div className="app">
      <header className="topbar">
        <a className="brand" href={href([])}>
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>{' '}
          Crucible
        </a>
        {isStatic ? (
          <span className="topbar-note">run report · works offline</span>
        ) : (
          <nav aria-label="main">
            <a href={href([])} className={head === undefined || head === 'runs' ? 'active' : ''}>
              Runs
            </a>
            <a href={href(['compare'])} className={head === 'compare' ? 'active' : ''}>
              Compare
            </a>
            <a href={href(['trends'])} className={head === 'trends' ? 'active' : ''}>
              Trends
            </a>
          </nav>
        )}
      </header>
      <main>{page}</main>
    </div>
  );
}
