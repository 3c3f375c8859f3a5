import type { ReactNode } from 'react';
import type { Cause, RunStats } from '../data/types.js';
import { NameLegend, agentLabels } from './NameLegend.js';
import { CAUSE_COLOURS } from './scale.js';

const W = 460;
const ROW = 26;
const M = { l: 110, r: 16, t: 6 };

/** How each agent's attempts ended, as shares of its attempts. */
export function CauseBars({ stats }: { stats: RunStats }): ReactNode {
  const causes = (Object.keys(stats.agents[0]?.causes ?? {}) as Cause[]).filter((c) => stats.agents.some((a) => a.causes[c] > 0));
  const H = M.t + stats.agents.length * ROW + 6;
  const span = W - M.l - M.r;
  const labels = agentLabels(
    stats.agents.map((a) => a.agent),
    14,
  );
  return (
    <figure className="chart">
      <svg data-chart="causes" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label="failure causes by agent">
        {stats.agents.map((a, i) => {
          const y = M.t + i * ROW;
          let x = M.l;
          return (
            <g key={a.agent}>
              <text x={M.l - 8} y={y + ROW / 2 + 3} textAnchor="end" className="axis-label strong">
                {labels.get(a.agent) ?? a.agent}
                <title>{a.agent}</title>
              </text>
              {causes.map((c) => {
                const n = a.causes[c];
                if (n === 0 || a.attempts === 0) return null;
                const w = (n / a.attempts) * span;
                const rect = (
                  <g key={c}>
                    <rect x={x} y={y + 4} width={w} height={ROW - 8} fill={CAUSE_COLOURS[c] ?? '#8c959f'} />
                    {w > 22 ? (
                      <text
                        x={x + w / 2}
                        y={y + ROW / 2 + 3}
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
      <NameLegend labels={labels} />
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
