import type { ReactNode } from 'react';
import { agentInfoText, duration, usd, when } from '../../../src/features/report/format.js';
import { Checks } from '../components/Checks.js';
import { DiffView } from '../components/DiffView.js';
import { Tests } from '../components/Tests.js';
import { Commands, Trajectory } from '../components/Trajectory.js';
import { Await, CauseTag, VerdictBadge } from '../components/ui.js';
import { useSource } from '../data/context.js';
import type { AttemptView } from '../data/types.js';
import { useData } from '../data/use-data.js';
import { href } from '../router.js';
import { meaningfulScore } from '../../../src/features/report/format.js';

const TABS = [
  ['overview', 'Overview'],
  ['diff', 'Diff'],
  ['trajectory', 'Trajectory'],
  ['tests', 'Tests'],
  ['commands', 'Commands'],
] as const;

function Overview({ view }: { view: AttemptView }): ReactNode {
  const a = view.attempt;
  const u = a.agentResult?.usage;
  return (
    <div className="overview">
      <dl className="facts">
        <div>
          <dt>cause</dt>
          <dd>
            <CauseTag cause={a.cause} />
          </dd>
        </div>
        {meaningfulScore(a) !== undefined && (
          <div>
            <dt>score</dt>
            <dd>{meaningfulScore(a)}</dd>
          </div>
        )}
        <div>
          <dt>time</dt>
          <dd>
            {duration(a.timings.totalMs)}{' '}
            <span className="muted">
              (prepare {duration(a.timings.prepareMs)}, agent {duration(a.timings.agentMs)}, verify {duration(a.timings.verifyMs)})
            </span>
          </dd>
        </div>
        {a.agentInfo ? (
          <div>
            <dt>agent</dt>
            <dd>
              {a.agent} <span className="muted">{agentInfoText(a.agentInfo)}</span>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>agent stop</dt>
          <dd>
            {a.agentResult?.stopReason ?? '–'}
            {a.agentResult?.turns !== undefined ? ` · ${a.agentResult.turns} turns` : ''}
            {a.agentResult?.toolCalls !== undefined ? ` · ${a.agentResult.toolCalls} tool calls` : ''}
          </dd>
        </div>
        <div>
          <dt>tokens</dt>
          <dd>{u ? `${u.inputTokens} in · ${u.outputTokens} out · ${u.cacheReadTokens} cached · ${u.requests} requests` : 'not reported'}</dd>
        </div>
        <div>
          <dt>cost</dt>
          <dd>{usd(u?.costUsd)}</dd>
        </div>
        <div>
          <dt>diff</dt>
          <dd>{a.diff ? `${a.diff.filesChanged} file(s), +${a.diff.added} −${a.diff.deleted}` : '–'}</dd>
        </div>
        <div>
          <dt>sandbox</dt>
          <dd>
            {a.sandbox}
            {a.baselineCommit ? (
              <>
                {' '}
                · baseline <code>{a.baselineCommit.slice(0, 12)}</code>
              </>
            ) : null}
          </dd>
        </div>
      </dl>
      {a.harnessError ? (
        <p className="error">
          Harness error in {a.harnessError.phase}: {a.harnessError.message}
        </p>
      ) : null}
      {(a.taskError?.defects ?? []).map((d, i) => (
        <p className="error" key={i}>
          Task error: {d.file}: <code>{d.field}</code>: {d.problem} (fix: {d.fix})
        </p>
      ))}
      <h3>Checks</h3>
      <Checks checks={a.checks} />
      <Tests tests={a.tests} heldOut={a.heldOut} cases={null} heldOutCases={null} />
    </div>
  );
}

function AttemptBody({ view, tab }: { view: AttemptView; tab: string }): ReactNode {
  const source = useSource();
  const a = view.attempt;
  const dir = `attempts/${a.attemptId}`;
  return (
    <div className="attempt" data-testid="attempt-page">
      <header className="page-head">
        <p className="crumbs">
          {source.mode === 'api' ? <a href={href([])}>Runs</a> : 'Run'} / <a href={href(['runs', a.runId])}>{a.runId}</a> / <code>{a.attemptId}</code>
        </p>
        <h1>
          <VerdictBadge verdict={a.verdict} /> {a.taskId}{' '}
          <span className="muted">
            · {a.agent} #{a.trial}
          </span>
        </h1>
        <p className="meta">
          <CauseTag cause={a.cause} /> {a.message}
        </p>
        <p className="meta muted">
          {when(a.startedAt)} · {duration(a.timings.totalMs)}
        </p>
        {view.artifacts.omitted ? <p className="muted">Evidence files {view.artifacts.omitted}.</p> : null}
      </header>
      <nav className="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <a
            key={id}
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? 'active' : ''}
            href={href(['attempts', a.attemptId], id === 'overview' ? {} : { tab: id })}
          >
            {label}
            {id === 'diff' && a.diff ? <span className="tab-count">{a.diff.filesChanged}</span> : null}
            {id === 'trajectory' && view.artifacts.trajectory ? <span className="tab-count">{view.artifacts.trajectory.total}</span> : null}
          </a>
        ))}
      </nav>
      <div className="tab-body">
        {tab === 'diff' ? (
          <DiffView diff={view.artifacts.diff} fileLink={source.fileUrl(a.runId, `${dir}/diff.patch`)} />
        ) : tab === 'trajectory' ? (
          <Trajectory trajectory={view.artifacts.trajectory} />
        ) : tab === 'tests' ? (
          <Tests tests={a.tests} heldOut={a.heldOut} cases={view.artifacts.tests} heldOutCases={view.artifacts.heldOutTests} />
        ) : tab === 'commands' ? (
          <Commands commands={view.artifacts.commands} />
        ) : (
          <Overview view={view} />
        )}
      </div>
    </div>
  );
}

export function AttemptPage({ attemptId, tab }: { attemptId: string; tab: string }): ReactNode {
  const source = useSource();
  const data = useData(() => source.getAttempt(attemptId), attemptId);
  return <Await data={data}>{(view) => <AttemptBody view={view} tab={tab} />}</Await>;
}
