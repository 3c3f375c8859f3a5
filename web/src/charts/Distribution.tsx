import type { ReactNode } from 'react';
import { count, duration, usd } from '../../../src/features/report/format.js';
import type { AgentStats, Measured, RunStats } from '../data/types.js';
import { NameLegend, agentLabels } from './NameLegend.js';
import { linear, seriesColour, ticks } from './scale.js';

const W = 460;
const ROW = 30;
const M = { l: 110, r: 20, t: 8, b: 30 };

export type Metric = 'tokens' | 'latency' | 'cost' | 'turns';

const PICK: Record<Metric, (a: AgentStats) => Measured> = {
  tokens: (a) => a.tokens.total,
  latency: (a) => a.latency.totalMs,
  cost: (a) => a.costUsd,
  turns: (a) => a.turns,
};

const FORMAT: Record<Metric, (v: number) => string> = {
  tokens: (v) => count(v),
  latency: (v) => duration(v),
  cost: (v) => usd(v),
  turns: (v) => count(v),
};

/**
 * One row per agent: the line spans min to max, the bar median to p95, the tick is the mean.
 * Drawn from each agent's summary, so it costs the same for ten attempts or a hundred thousand.
 */
export function Distribution({ stats, metric }: { stats: RunStats; metric: Metric }): ReactNode {
  const rows = stats.agents.map((a, i) => ({ a, i, m: PICK[metric](a) }));
  const anyData = rows.some((r) => r.m.stats !== null);
  const max = Math.max(0, ...rows.map((r) => r.m.stats?.max ?? 0)) || 1;
  const H = M.t + rows.length * ROW + M.b;
  const x = linear([0, max], [M.l, W - M.r]);
  const fmt = FORMAT[metric];
  const labels = agentLabels(
    stats.agents.map((a) => a.agent),
    14,
  );
  return (
    <figure className="chart">
      <svg data-chart={metric} width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${metric} per attempt by agent`}>
        {(anyData ? ticks(0, max, 4) : []).map((v) => (
          <g key={v}>
            <line x1={x(v)} x2={x(v)} y1={M.t} y2={H - M.b} className="grid" />
            <text x={x(v)} y={H - M.b + 16} textAnchor="middle" className="axis-label">
              {fmt(v)}
            </text>
          </g>
        ))}
        <line x1={M.l} x2={W - M.r} y1={H - M.b} y2={H - M.b} className="axis" />
        {rows.map(({ a, i, m }) => {
          const cy = M.t + i * ROW + ROW / 2;
          const colour = seriesColour(i);
          const s = m.stats;
          return (
            <g key={a.agent}>
              <text x={M.l - 8} y={cy + 4} textAnchor="end" className="axis-label strong">
                {labels.get(a.agent) ?? a.agent}
                <title>{a.agent}</title>
              </text>
              {s ? (
                <>
                  <line x1={x(s.min)} x2={x(s.max)} y1={cy} y2={cy} stroke={colour} strokeWidth={1.5} />
                  <rect x={x(s.median)} y={cy - 6} width={Math.max(2, x(s.p95) - x(s.median))} height={12} rx={2} fill={colour} opacity={0.35} />
                  <line x1={x(s.median)} x2={x(s.median)} y1={cy - 8} y2={cy + 8} stroke={colour} strokeWidth={3} />
                  <line x1={x(s.mean)} x2={x(s.mean)} y1={cy - 5} y2={cy + 5} stroke="#24292f" strokeWidth={1} strokeDasharray="2 1" />
                  <title>{`${a.agent}: median ${fmt(s.median)}, mean ${fmt(s.mean)}, p95 ${fmt(s.p95)}, min ${fmt(s.min)}, max ${fmt(s.max)}; n=${s.n}${m.missing ? `, ${m.missing} without a figure` : ''}`}</title>
                </>
              ) : (
                <text x={M.l + 4} y={cy + 4} className="axis-label muted-text">
                  not reported ({m.missing} attempt{m.missing === 1 ? '' : 's'} without a figure)
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <NameLegend labels={labels} />
      <figcaption className="muted">Line: min–max · bar: median–p95 · thick tick: median · dashed: mean.</figcaption>
    </figure>
  );
}
