import type { ReactNode } from 'react';
import { count, duration, usd } from '../../../src/features/report/format.js';
import type { AgentStats, Measured, RunStats } from '../data/types.js';
import { Label, rowHeight, rowLabels, stackRows } from './Label.js';
import { useFitWidth } from './use-width.js';
import { linear, seriesColour, ticks } from './scale.js';
import { textWidth } from './text.js';

const MAX_W = 460;
const MIN_W = 300;
const ROW = 30;
const M = { r: 20, t: 8, b: 30 };
const GAP = 8;
const LABEL_SHARE = 0.4;

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

/** The agents of a run with no figure for `metric` (reference agents make no model request). */
export function unreported(stats: RunStats, metric: Metric): string[] {
  return stats.agents.filter((a) => PICK[metric](a).stats === null).map((a) => a.agent);
}

/**
 * One row per agent that reported the metric: the line spans min to max, the bar median to p95,
 * the tick is the mean. Agents without a figure are named in one line under the chart, not drawn
 * as empty rows. Drawn from each agent's summary, so it costs the same for ten attempts or a
 * hundred thousand. The run page folds the whole panel when no agent has a figure.
 */
export function Distribution({ stats, metric }: { stats: RunStats; metric: Metric }): ReactNode {
  const { ref, width: W } = useFitWidth(MAX_W, MIN_W);
  const rows = stats.agents.flatMap((a, i) => {
    const s = PICK[metric](a).stats;
    return s ? [{ a, i, s, missing: PICK[metric](a).missing }] : [];
  });
  const without = unreported(stats, metric);
  const max = Math.max(0, ...rows.map((r) => r.s.max)) || 1;
  const labels = rowLabels(
    rows.map((r) => r.a.agent),
    W * LABEL_SHARE,
  );
  const left = labels.width + GAP + 4;
  const heights = rows.map((r) => rowHeight(labels.lines.get(r.a.agent), ROW));
  const stacked = stackRows(heights, M.t);
  const H = stacked.bottom + M.b;
  const x = linear([0, max], [left, W - M.r]);
  const fmt = FORMAT[metric];
  return (
    <figure className="chart" ref={ref}>
      <svg data-chart={metric} width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${metric} per attempt by agent`}>
        {ticks(0, max, 4).map((v) => {
          const label = fmt(v);
          // The last tick's label ends at the chart's edge rather than past it.
          const anchor = x(v) + textWidth(label) / 2 > W - 1 ? 'end' : 'middle';
          return (
            <g key={v}>
              <line x1={x(v)} x2={x(v)} y1={M.t} y2={H - M.b} className="grid" />
              <text x={anchor === 'end' ? W - 1 : x(v)} y={H - M.b + 16} textAnchor={anchor} className="axis-label">
                {label}
              </text>
            </g>
          );
        })}
        <line x1={left} x2={W - M.r} y1={H - M.b} y2={H - M.b} className="axis" />
        {rows.map(({ a, i, s, missing }, r) => {
          const cy = (stacked.tops[r] ?? 0) + (heights[r] ?? ROW) / 2;
          const colour = seriesColour(i);
          return (
            <g key={a.agent}>
              <Label lines={labels.lines.get(a.agent) ?? [a.agent]} x={left - GAP} y={cy} anchor="end" className="axis-label strong" title={a.agent} />
              <line x1={x(s.min)} x2={x(s.max)} y1={cy} y2={cy} stroke={colour} strokeWidth={1.5} />
              <rect x={x(s.median)} y={cy - 6} width={Math.max(2, x(s.p95) - x(s.median))} height={12} rx={2} fill={colour} opacity={0.35} />
              <line x1={x(s.median)} x2={x(s.median)} y1={cy - 8} y2={cy + 8} stroke={colour} strokeWidth={3} />
              <line x1={x(s.mean)} x2={x(s.mean)} y1={cy - 5} y2={cy + 5} stroke="#24292f" strokeWidth={1} strokeDasharray="2 1" />
              <title>{`${a.agent}: median ${fmt(s.median)}, mean ${fmt(s.mean)}, p95 ${fmt(s.p95)}, min ${fmt(s.min)}, max ${fmt(s.max)}; n=${s.n}${missing ? `, ${missing} without a figure` : ''}`}</title>
            </g>
          );
        })}
      </svg>
      {without.length > 0 ? (
        <p className="muted unreported" data-unreported={metric}>
          Not reported by {without.join(', ')}: none of their attempts has a figure (a reference agent makes no model request).
        </p>
      ) : null}
      <figcaption className="muted">Line: min–max · bar: median–p95 · thick tick: median · dashed: mean.</figcaption>
    </figure>
  );
}
