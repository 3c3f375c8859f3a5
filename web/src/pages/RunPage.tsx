import type { ReactNode } from 'react';
import { agentInfoText, duration, elapsed, interval, overfittingCell, pairedSentence, pct, usd, when } from '../../../src/features/report/format.js';
import { CauseBars } from '../charts/CauseBars.js';
import { CostScatter, anyCost } from '../charts/CostScatter.js';
import { Distribution, unreported, type Metric } from '../charts/Distribution.js';
import { AttemptsTable } from '../components/AttemptsTable.js';
import { HeldOutCards, ReliabilityCards } from '../components/Cards.js';
import { RunHeatmap } from '../components/RunHeatmap.js';
import { GuardTable } from '../components/GuardTable.js';
import { FailurePatternsTable } from '../components/FailurePatternsTable.js';
import { Await, CountsBar, IntervalBar, Section } from '../components/ui.js';
import { useSource } from '../data/context.js';
import type { RunInfo, RunStats, RunView } from '../data/types.js';
import { useData } from '../data/use-data.js';
import { href } from '../router.js';
import { formatStrengthSummary } from '../../../src/features/strength/summary.js';

function VerdictTable({ stats, agentInfo }: { stats: RunStats; agentInfo?: RunInfo['agentInfo'] }): ReactNode {
  // Only when some task keeps its held-out tests informational (`held_out.required: false`).
  const overfitting = stats.agents.some((a) => a.overfitting !== undefined);
  return (
    <table className="table verdict" data-testid="verdict">
      <thead>
        <tr>
          <th>agent</th>
          <th>pass rate</th>
          <th>{Math.round(stats.confidence * 100)}% interval</th>
          <th>n (scored)</th>
          <th>passed</th>
          <th>tasks</th>
          <th>harness errors</th>
          <th>mean cost</th>
          <th>median time</th>
          {overfitting ? <th title="Passes that failed held-out tests their task keeps informational (held_out.required: false)">overfitting</th> : null}
        </tr>
      </thead>
      <tbody>
        {stats.agents.map((a) => {
          const info = agentInfo?.[a.agent];
          return (
            <tr key={a.agent}>
              <th scope="row">
                {a.agent}
                {info ? <span className="muted"> {agentInfoText(info)}</span> : null}
              </th>
              <td className="big-cell">{a.passRate ? pct(a.passRate.rate) : '–'}</td>
              <td>
                <IntervalBar rate={a.passRate?.rate ?? null} low={a.passRate?.low ?? null} high={a.passRate?.high ?? null} />{' '}
                <span className="muted">{a.passRate ? interval(a.passRate.low, a.passRate.high) : 'nothing scored'}</span>
              </td>
              <td>{a.scored}</td>
              <td>{a.passes}</td>
              <td>{a.scoredTasks}</td>
              <td>{a.harnessErrors.count > 0 ? <span className="warn">{a.harnessErrors.count}</span> : 0}</td>
              <td>{usd(a.costUsd.stats?.mean)}</td>
              <td>{duration(a.latency.totalMs.stats?.median)}</td>
              {overfitting ? (
                <td data-testid="overfitting">
                  {a.overfitting ? <span className={a.overfitting.failedHeldOut > 0 ? 'warn' : undefined}>{overfittingCell(a)}</span> : '–'}
                </td>
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A suite run: each agent's pass rate per task set, with n and interval like the verdict table. */
function TaskSetTable({ stats }: { stats: RunStats }): ReactNode {
  return (
    <table className="table" data-testid="by-task-set">
      <thead>
        <tr>
          <th>task set</th>
          <th>agent</th>
          <th>pass rate</th>
          <th>{Math.round(stats.confidence * 100)}% interval</th>
          <th>n (scored)</th>
          <th>passed</th>
          <th>tasks</th>
        </tr>
      </thead>
      <tbody>
        {(stats.byTaskSet ?? []).flatMap((s) =>
          s.agents.map((a) => (
            <tr key={`${s.taskSet}|${a.agent}`}>
              <th scope="row">{s.taskSet}</th>
              <td>{a.agent}</td>
              <td>{a.passRate ? pct(a.passRate.rate) : '–'}</td>
              <td>
                <IntervalBar rate={a.passRate?.rate ?? null} low={a.passRate?.low ?? null} high={a.passRate?.high ?? null} />{' '}
                <span className="muted">{a.passRate ? interval(a.passRate.low, a.passRate.high) : 'nothing scored'}</span>
              </td>
              <td>{a.scored}</td>
              <td>{a.passes}</td>
              <td>{a.tasks}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** A panel the run has no data for: one line in place of an empty chart. */
interface Folded {
  id: string;
  title: string;
  note: string;
}

/**
 * The charts of a run, in a grid; a chart with nothing to draw (cost and tokens of reference agents,
 * which make no model request) is folded into one line under the grid.
 */
function Panels({ stats }: { stats: RunStats }): ReactNode {
  const folded: Folded[] = [];
  const metric = (id: Metric, title: string): ReactNode => {
    const without = unreported(stats, id);
    if (without.length < stats.agents.length)
      return (
        <Section title={title}>
          <Distribution stats={stats} metric={id} />
        </Section>
      );
    folded.push({ id, title, note: `not reported by ${without.join(', ')}` });
    return null;
  };
  let cost: ReactNode = null;
  if (anyCost(stats))
    cost = (
      <Section title="Cost versus pass rate">
        <CostScatter stats={stats} />
      </Section>
    );
  else folded.push({ id: 'cost', title: 'Cost versus pass rate', note: `no cost reported by ${unreported(stats, 'cost').join(', ')}` });
  const charts = (
    <div className="grid-2">
      {cost}
      <Section title="Failure causes">
        <CauseBars stats={stats} />
      </Section>
      {metric('tokens', 'Tokens per attempt')}
      {metric('latency', 'Latency per attempt')}
    </div>
  );
  return (
    <>
      {charts}
      {folded.length > 0 ? (
        <ul className="folded muted" data-testid="folded-panels">
          {folded.map((f) => (
            <li key={f.id} data-folded={f.id}>
              <strong>{f.title}:</strong> {f.note} (a reference agent makes no model request).
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

/** The run report: the same content in the dashboard and in report.html. */
export function RunReport({ view }: { view: RunView }): ReactNode {
  const source = useSource();
  const { run, stats } = view;
  return (
    <div className="run" data-testid="run-page">
      <header className="page-head">
        <p className="crumbs">
          {source.mode === 'api' ? <a href={href([])}>Runs</a> : 'Run'} / <code>{run.runId}</code>
          {run.kind === 'validate' ? (
            <span className="badge" data-testid="run-kind" title="crucible validate: the tasks judged with nop and oracle (or attacks), not agents measured">
              validate
            </span>
          ) : null}
        </p>
        <h1>
          {run.counts.PASS} of {run.executed} attempts passed
        </h1>
        <p className="meta">
          <CountsBar counts={run.counts} width={180} /> <span className="pass-text">{run.counts.PASS} passed</span> ·{' '}
          <span className="fail-text">{run.counts.FAIL} failed</span> · <span className="error-text">{run.counts.ERROR} errored</span> · task set{' '}
          <code>{run.taskSet}</code> · {when(run.createdAt)} · {duration(elapsed(run.createdAt, run.finishedAt))}
          {run.finishedAt === null ? <strong className="warn"> · still running</strong> : null}
        </p>
        {run.stoppedEarly ? (
          <p className="warn">
            Stopped early: {run.executed} of {run.planned} planned attempts ran.
          </p>
        ) : null}
        {view.reports.length > 0 ? (
          <p className="meta">
            Reports:{' '}
            {view.reports.map((r, i) => {
              const url = source.fileUrl(run.runId, r);
              return (
                <span key={r}>
                  {i > 0 ? ' · ' : ''}
                  {url ? <a href={url}>{r}</a> : r}
                </span>
              );
            })}
          </p>
        ) : null}
      </header>

      {stats ? (
        <>
          <Section title="Verdict" note="Pass rates over scored attempts; harness errors are counted apart and never in a denominator.">
            <VerdictTable stats={stats} agentInfo={view.run.agentInfo} />
            {view.strength ? (
              <p className="strength" data-testid="task-strength">
                <strong>Task strength:</strong> {formatStrengthSummary(view.strength)}.{' '}
                <span className="muted">
                  The share of near-miss wrong fixes (mutants of each oracle) the tasks&apos; tests fail: a pass rate is no surer than that (
                  <code>crucible validate --strength</code>).
                </span>
              </p>
            ) : null}
            {view.resemblances && view.resemblances.length > 0 ? (
              <div className="strength" data-testid="strength-resemblances">
                <strong>Passes that resemble a surviving mutant</strong>{' '}
                <span className="muted">(the diff adds a line of a near-miss wrong fix the task&apos;s tests accept: read it before trusting the pass)</span>
                <ul>
                  {view.resemblances.map((r) => (
                    <li key={r.attemptId}>
                      <code>{r.attemptId}</code> {r.agent} on {r.taskId}:{' '}
                      {r.mutants.map((m) => (
                        <span key={m.id}>
                          {m.file}:{m.line} {m.operator} <code>{m.after.trim()}</code>{' '}
                        </span>
                      ))}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
            {stats.comparisons.length > 0 ? (
              <ul className="paired" data-testid="paired">
                {stats.comparisons.map((c) => (
                  <li key={`${c.a}|${c.b}`} className={c.verdict === 'not separated' ? 'not-separated' : 'separated'}>
                    <strong>{c.verdict === 'not separated' ? 'Not separated' : c.verdict === 'A better' ? `${c.a} better` : `${c.b} better`}:</strong>{' '}
                    {pairedSentence(c)}
                  </li>
                ))}
              </ul>
            ) : null}
            {stats.notes.length > 0 ? (
              <ul className="notes">
                {stats.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            ) : null}
          </Section>
          {stats.byTaskSet && stats.byTaskSet.length > 0 ? (
            <Section title="By task set" note="A suite run: each agent's pass rate on each task set's tasks, clustered by task.">
              <TaskSetTable stats={stats} />
            </Section>
          ) : null}
          <Section title="Reliability" note="pass@k: at least one of k trials passes; pass^k: all k trials pass.">
            <ReliabilityCards stats={stats} />
          </Section>
          <Section title="Held-out tests" note="Tests copied in only after the agent stopped.">
            <HeldOutCards cards={view.heldOut} />
          </Section>
          <Section title="Tasks × agents">
            <RunHeatmap runId={run.runId} agents={stats.agents.map((a) => a.agent)} />
          </Section>
          <Panels stats={stats} />
        </>
      ) : (
        <p className="empty">No statistics for this run yet.</p>
      )}
      {view.guard && view.guard.length > 0 ? (
        <Section
          title="Online guard"
          note={
            <>
              Findings while the agents ran (<code>--guard</code>); the post-hoc checks judged every attempt as usual. Details: <code>incident.json</code> in
              each attempt directory.
            </>
          }
        >
          <GuardTable counts={view.guard} />
        </Section>
      ) : null}
      {view.failurePatterns && view.failurePatterns.length > 0 ? (
        <Section
          title="Failure patterns"
          note={
            <>
              What the failed attempts did, read from their trajectories, command logs and diffs; each rule: <code>docs/failure-patterns.md</code>.
            </>
          }
        >
          <FailurePatternsTable runId={run.runId} patterns={view.failurePatterns} />
        </Section>
      ) : null}
      <Section title={`Attempts (${view.attemptsTotal})`}>
        <AttemptsTable runId={run.runId} stats={stats} tasks={view.tasks} tasksTruncated={view.tasksTruncated === true} />
      </Section>
    </div>
  );
}

export function RunPage({ runId }: { runId: string }): ReactNode {
  const source = useSource();
  const data = useData(() => source.getRun(runId), runId);
  return <Await data={data}>{(view) => <RunReport view={view} />}</Await>;
}
