import type { ReactNode } from 'react';
import type { RunStats } from '../data/types.js';
import { NameLegend, agentLabels } from './NameLegend.js';
import { rateFill } from './scale.js';

const CELL_W = 120;
const CELL_H = 26;
const LABEL_W = 190;
const HEAD_H = 28;
const MAX_ROWS = 200;

/** Task × agent: colour = pass rate, label = passes / scored (harness errors apart). */
export function Heatmap({ stats, onCell }: { stats: RunStats; onCell?: (taskId: string, agent: string) => void }): ReactNode {
  const agents = stats.agents.map((a) => a.agent);
  const labels = agentLabels(agents, 18);
  const allTasks = [...new Set(stats.cells.map((c) => c.taskId))];
  const tasks = allTasks.slice(0, MAX_ROWS);
  const cells = new Map(stats.cells.map((c) => [`${c.taskId}\u0000${c.agent}`, c]));
  const width = LABEL_W + agents.length * CELL_W;
  const height = HEAD_H + tasks.length * CELL_H;
  return (
    <figure className="chart">
      <svg data-chart="heatmap" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="pass rate per task and agent">
        {agents.map((a, j) => (
          <text key={a} x={LABEL_W + j * CELL_W + CELL_W / 2} y={18} textAnchor="middle" className="axis-label strong">
            {labels.get(a) ?? a}
            <title>{a}</title>
          </text>
        ))}
        {tasks.map((t, i) => (
          <g key={t} transform={`translate(0 ${HEAD_H + i * CELL_H})`}>
            <text x={LABEL_W - 8} y={CELL_H / 2 + 4} textAnchor="end" className="axis-label">
              {t.length > 26 ? `${t.slice(0, 25)}…` : t}
              <title>{t}</title>
            </text>
            {agents.map((a, j) => {
              const c = cells.get(`${t}\u0000${a}`);
              const x = LABEL_W + j * CELL_W;
              if (!c) return <rect key={a} x={x + 1} y={1} width={CELL_W - 2} height={CELL_H - 2} className="cell-empty" />;
              const label = c.n === 0 ? `${c.harnessErrors} err` : `${c.passes}/${c.n}`;
              const fill = c.n === 0 ? undefined : rateFill(c.passes / c.n);
              return (
                <g key={a} className={onCell ? 'clickable' : undefined} onClick={onCell ? () => onCell(t, a) : undefined}>
                  <rect
                    x={x + 1}
                    y={1}
                    width={CELL_W - 2}
                    height={CELL_H - 2}
                    rx={3}
                    style={fill ? { fill } : undefined}
                    className={c.n === 0 ? 'cell-error' : 'cell'}
                  />
                  <text x={x + CELL_W / 2} y={CELL_H / 2 + 4} textAnchor="middle" className="cell-label">
                    {label}
                    {c.harnessErrors > 0 && c.n > 0 ? ` +${c.harnessErrors}⚠` : ''}
                  </text>
                  <title>{`${t} · ${a}: ${c.passes} of ${c.n} scored passed${c.harnessErrors ? `, ${c.harnessErrors} harness errors` : ''}`}</title>
                </g>
              );
            })}
          </g>
        ))}
      </svg>
      <NameLegend labels={labels} />
      {allTasks.length > MAX_ROWS ? (
        <figcaption className="muted">
          First {MAX_ROWS} of {allTasks.length} tasks.
        </figcaption>
      ) : null}
    </figure>
  );
}
