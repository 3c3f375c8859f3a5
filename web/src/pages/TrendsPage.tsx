import { useState, type ReactNode } from 'react';
import { pct } from '../../../src/features/report/format.js';
import { TrendChart } from '../charts/TrendChart.js';
import { Await, Section } from '../components/ui.js';
import { useSource } from '../data/context.js';
import type { TrendPointView } from '../data/types.js';
import { useData } from '../data/use-data.js';
import { href, navigate } from '../router.js';

export function TrendsPage({ bucket, agent, taskId, perTask }: { bucket: 'day' | 'run'; agent: string; taskId: string; perTask: boolean }): ReactNode {
  const source = useSource();
  const [agentInput, setAgent] = useState(agent);
  const [taskInput, setTask] = useState(taskId);
  const key = JSON.stringify([bucket, agent, taskId, perTask]);
  const data = useData(() => source.trends({ bucket, agent: agent || undefined, taskId: taskId || undefined, perTask, limit: 30 }), key);
  const go = (q: Partial<{ bucket: string; agent: string; task: string; perTask: string }>): void =>
    navigate(href(['trends'], { bucket, agent, task: taskId, perTask: perTask ? '1' : undefined, ...q }));
  const seriesOf = (p: TrendPointView): string => (p.taskId ? `${p.agent} · ${p.taskId}` : p.agent);
  return (
    <div data-testid="trends-page">
      <header className="page-head">
        <h1>Trends</h1>
        <p className="muted">Pass rate per {bucket === 'day' ? 'day (UTC)' : 'run'}, harness errors excluded; the band is the 95% Wilson interval.</p>
      </header>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ agent: agentInput, task: taskInput });
        }}
      >
        <label>
          per
          <select name="bucket" value={bucket} onChange={(e) => go({ bucket: e.target.value })}>
            <option value="day">day</option>
            <option value="run">run</option>
          </select>
        </label>
        <label>
          agent
          <input name="agent" value={agentInput} onChange={(e) => setAgent(e.target.value)} placeholder="every agent" />
        </label>
        <label>
          task
          <input name="task" value={taskInput} onChange={(e) => setTask(e.target.value)} placeholder="every task" />
        </label>
        <label className="inline">
          <input type="checkbox" checked={perTask} onChange={(e) => go({ perTask: e.target.checked ? '1' : undefined })} /> split by task
        </label>
        <button type="submit">Apply</button>
      </form>
      <Await data={data}>
        {(view) =>
          view.points.length === 0 ? (
            <p className="empty">No attempts match.</p>
          ) : (
            <>
              <Section title="Pass rate over time">
                <TrendChart points={view.points} seriesOf={seriesOf} />
              </Section>
              <Section title="Points">
                <table className="table">
                  <thead>
                    <tr>
                      <th>{bucket}</th>
                      <th>series</th>
                      <th>passed / scored</th>
                      <th>rate</th>
                      <th>interval</th>
                      <th>harness errors</th>
                    </tr>
                  </thead>
                  <tbody>
                    {[...view.points].reverse().map((p) => (
                      <tr key={`${p.bucket}|${seriesOf(p)}`}>
                        <td>{bucket === 'run' ? <a href={href(['runs', p.bucket])}>{p.bucket}</a> : p.bucket}</td>
                        <td>{seriesOf(p)}</td>
                        <td>
                          {p.passes}/{p.n}
                        </td>
                        <td>{pct(p.rate)}</td>
                        <td className="muted">{p.low !== null ? `[${pct(p.low)}, ${pct(p.high)}]` : '–'}</td>
                        <td>{p.errors}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Section>
            </>
          )
        }
      </Await>
    </div>
  );
}
