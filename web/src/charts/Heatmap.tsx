import type { ReactNode } from 'react';
import type { CellView } from '../data/types.js';
import { Label, rowHeight, rowLabels, stackRows } from './Label.js';
import { rateFill } from './scale.js';
import { BOLD, LABEL_SIZE, LINE_HEIGHT, widest, wrapText } from './text.js';

const CELL_W = 72;
/** A column widens to its agent's name up to this, and a longer name wraps in the header. */
const MAX_CELL_W = 160;
const CELL_H = 26;
const MAX_LABEL_W = 260;
const HEAD_PAD = 10;

/**
 * Task × agent: colour = pass rate, label = passes / scored (harness errors apart). Drawn at its
 * own size: on a narrow screen its panel scrolls sideways rather than shrink every label. Draws the
 * cells it is given (the pages of tasks loaded so far), tasks in the order they come.
 */
export function Heatmap({
  agents,
  cells: given,
  onCell,
}: {
  agents: string[];
  cells: readonly CellView[];
  onCell?: (taskId: string, agent: string) => void;
}): ReactNode {
  const cellW = Math.max(CELL_W, Math.min(MAX_CELL_W, Math.ceil(widest(agents, LABEL_SIZE, BOLD)) + 12));
  const heads = new Map(agents.map((a) => [a, wrapText(a, cellW - 12, LABEL_SIZE, BOLD)]));
  const headH = HEAD_PAD + Math.max(1, ...[...heads.values()].map((l) => l.length)) * LINE_HEIGHT + 4;
  const tasks = [...new Set(given.map((c) => c.taskId))];
  const taskLabels = rowLabels(tasks, MAX_LABEL_W);
  const labelW = taskLabels.width + 16;
  const heights = tasks.map((t) => rowHeight(taskLabels.lines.get(t), CELL_H));
  const rows = stackRows(heights, headH);
  const cells = new Map(given.map((c) => [`${c.taskId}\u0000${c.agent}`, c]));
  const width = labelW + agents.length * cellW;
  const height = rows.bottom;
  return (
    <figure className="chart">
      <svg
        data-chart="heatmap"
        className="natural-size"
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label="pass rate per task and agent"
      >
        {agents.map((a, j) => (
          <Label
            key={a}
            lines={heads.get(a) ?? [a]}
            x={labelW + j * cellW + cellW / 2}
            y={(HEAD_PAD + headH - 4) / 2}
            anchor="middle"
            className="axis-label strong"
            title={a}
          />
        ))}
        {tasks.map((t, i) => {
          const h = heights[i] ?? CELL_H;
          return (
            <g key={t} transform={`translate(0 ${rows.tops[i] ?? 0})`}>
              <Label lines={taskLabels.lines.get(t) ?? [t]} x={labelW - 8} y={h / 2} anchor="end" className="axis-label" title={t} />
              {agents.map((a, j) => {
                const c = cells.get(`${t}\u0000${a}`);
                const x = labelW + j * cellW;
                if (!c) return <rect key={a} x={x + 1} y={1} width={cellW - 2} height={h - 2} className="cell-empty" />;
                const label = c.n === 0 ? `${c.harnessErrors} err` : `${c.passes}/${c.n}`;
                const fill = c.n === 0 ? undefined : rateFill(c.passes / c.n);
                return (
                  <g key={a} className={onCell ? 'clickable' : undefined} onClick={onCell ? () => onCell(t, a) : undefined}>
                    <rect
                      x={x + 1}
                      y={1}
                      width={cellW - 2}
                      height={h - 2}
                      rx={3}
                      style={fill ? { fill } : undefined}
                      className={c.n === 0 ? 'cell-error' : 'cell'}
                    />
                    <text x={x + cellW / 2} y={h / 2 + 4} textAnchor="middle" className="cell-label">
                      {label}
                      {c.harnessErrors > 0 && c.n > 0 ? ` +${c.harnessErrors}⚠` : ''}
                    </text>
                    <title>{`${t} · ${a}: ${c.passes} of ${c.n} scored passed${c.harnessErrors ? `, ${c.harnessErrors} harness errors` : ''}`}</title>
                  </g>
                );
              })}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
