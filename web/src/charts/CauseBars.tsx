import type { ReactNode } from 'react';
import type { Cause, RunStats } from '../data/types.js';
import { Label, rowHeight, rowLabels, stackRows } from './Label.js';
import { useFitWidth } from './use-width.js';
import { CAUSE_COLOURS } from './scale.js';
import { BOLD, textWidth } from './text.js';

const MAX_W = 460;
const MIN_W = 300;
const ROW = 26;
const M = { r: 16, t: 6 };
const GAP = 8;
/** The agents' column never takes more than this share of the chart: longer names wrap. */
const LABEL_SHARE = 0.4;

/** How each agent's attempts ended, as shares of its attempts. */
export function CauseBars({ stats }: { stats: RunStats }): ReactNode {
  const { ref, width: W } = useFitWidth(MAX_W, MIN_W);
  const causes = (Object.keys(stats.agents[0]?.causes ?? {}) as Cause[]).filter((c) => stats.agents.some((a) => a.causes[c] > 0));
  const labels = rowLabels(
    stats.agents.map((a) => a.agent),
    W * LABEL_SHARE,
  );
  const left = labels.width + GAP + 4;
  const span = W - left - M.r;
  const rows = stackRows(
    stats.agents.map((a) => rowHeight(labels.lines.get(a.agent), ROW)),
    M.t,
  );
  const H = rows.bottom + 6;
  return (
    <figure className="chart" ref={ref}>
      <svg data-chart="causes" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label="failure causes by agent">
        {stats.agents.map((a, i) => {
          const top = rows.tops[i] ?? 0;
          const mid = top + rowHeight(labels.lines.get(a.agent), ROW) / 2;
          let x = left;
          return (
            <g key={a.agent}>
              <Label lines={labels.lines.get(a.agent) ?? [a.agent]} x={left - GAP} y={mid} anchor="end" className="axis-label strong" title={a.agent} />
              {causes.map((c) => {
                const n = a.causes[c];
                if (n === 0 || a.attempts === 0) return null;
                const w = (n / a.attempts) * span;
                const rect = (
                  <g key={c}>
                    <rect x={x} y={mid - ROW / 2 + 4} width={w} height={ROW - 8} fill={CAUSE_COLOURS[c] ?? '#8c959f'} />
                    {/* A count is written on its segment only where it fits inside it. */}
                    {w >= textWidth(String(n), 11, BOLD) + 6 ? (
                      <text
                        x={x + w / 2}
                        y={mid + 4}
                        textAnchor="middle"
                        className={c === 'harness_error' || c === 'provider_error' || c === 'max_turns' ? 'bar-label dark' : 'bar-label'}
                      >
                        {n}
                      </text>
                    ) : null}
                    <title>{`${a.agent}: ${n} × ${c}`}</title>
                  </g>
                );
                x += w;
                return rect;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption className="legend">
        {causes.map((c) => (
          <span key={c}>
            <i style={{ background: CAUSE_COLOURS[c] ?? '#8c959f' }} />
            {c}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
