import type { ReactNode } from 'react';
import { pct, usd } from '../../../src/features/report/format.js';
import type { RunStats } from '../data/types.js';
import { placeLabels } from './place-labels.js';
import { RateAxis } from './RateAxis.js';
import { SeriesLegend } from './SeriesLegend.js';
import { useFitWidth } from './use-width.js';
import { linear, seriesColour, ticks } from './scale.js';
import { BOLD, LABEL_SIZE, textWidth } from './text.js';

const MAX_W = 460;
const MIN_W = 300;
const H = 260;
const M = { l: 48, r: 16, t: 14, b: 40 };
const UNKNOWN_W = 70;
const R = 5;
const LABEL_H = 14;
const ASCENT = 11;

/** Whether any agent of the run has a cost: without one the run page folds this panel. */
export function anyCost(stats: RunStats): boolean {
  return stats.agents.some((a) => a.costUsd.stats !== null);
}

/**
 * Pass rate (with its interval) against mean cost per scored attempt. Agents whose cost is unknown
 * (no usage, or a model without a price) sit in their own band: unknown is not free. A point's
 * name is written beside it only where it touches no other name or point; the legend under the
 * chart names every agent whatever room there was.
 */
export function CostScatter({ stats }: { stats: RunStats }): ReactNode {
  const { ref, width: W } = useFitWidth(MAX_W, MIN_W);
  const rows = stats.agents.map((a, i) => ({ a, i, cost: a.costUsd.stats?.mean ?? null }));
  const known = rows.filter((r) => r.cost !== null);
  const maxCost = Math.max(0, ...known.map((r) => r.cost as number)) || 1;
  const unknown = rows.filter((r) => r.cost === null);
  // The band for unknown costs is drawn only when some agent needs it.
  const bandW = unknown.length > 0 ? UNKNOWN_W : 0;
  const x0 = M.l + bandW;
  const x = linear([0, maxCost * 1.15], [x0 + 14, W - M.r - 10]);
  const y = linear([0, 1], [H - M.b, M.t]);
  const points = rows.flatMap(({ a, i, cost }) => {
    if (!a.passRate) return [];
    const ux = M.l + UNKNOWN_W / 2 + (unknown.findIndex((u) => u.a === a) - (unknown.length - 1) / 2) * 14;
    return [{ a, i, cost, cx: cost === null ? ux : x(cost), cy: y(a.passRate.rate), low: y(a.passRate.low), high: y(a.passRate.high) }];
  });
  const placed = placeLabels(
    points.map((p) => ({ id: p.a.agent, x: p.cx, y: p.cy, r: R, width: textWidth(p.a.agent, LABEL_SIZE, BOLD), height: LABEL_H })),
    { left: M.l, top: 0, right: W, bottom: H - M.b },
    ASCENT,
    points.map((p) => ({ left: p.cx - 1, right: p.cx + 1, top: p.high, bottom: p.low })),
  );
  const bandLabel = 'cost unknown';
  const bandLabelRight = M.l + bandW / 2 + textWidth(bandLabel) / 2;
  return (
    <figure className="chart" ref={ref}>
      <svg data-chart="cost" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label="pass rate against mean cost per attempt">
        <RateAxis y={y} x1={M.l} x2={W - M.r} />
        {bandW > 0 ? (
          <>
            <rect x={M.l} y={M.t} width={bandW} height={H - M.b - M.t} className="unknown-band" />
            <text x={M.l + bandW / 2} y={H - M.b + 16} textAnchor="middle" className="axis-label">
              {bandLabel}
            </text>
          </>
        ) : null}
        {ticks(0, maxCost * 1.15, 3).map((v) => {
          const label = usd(v);
          const half = textWidth(label) / 2;
          // A tick's label that would touch the band's label or leave the chart is left out.
          if ((bandW > 0 && x(v) - half < bandLabelRight + 4) || x(v) + half > W) return null;
          return (
            <text key={v} x={x(v)} y={H - M.b + 16} textAnchor="middle" className="axis-label">
              {label}
            </text>
          );
        })}
        <text x={(x0 + W) / 2} y={H - 6} textAnchor="middle" className="axis-title">
          mean cost per scored attempt
        </text>
        {points.map(({ a, i, cost, cx, cy }) => {
          if (!a.passRate) return null;
          const colour = seriesColour(i);
          const at = placed.get(a.agent);
          return (
            <g key={a.agent}>
              <line x1={cx} x2={cx} y1={y(a.passRate.low)} y2={y(a.passRate.high)} stroke={colour} strokeWidth={2} />
              <circle cx={cx} cy={cy} r={R} fill={colour} />
              {at ? (
                <text x={at.x} y={at.baseline} className="point-label" fill={colour}>
                  {a.agent}
                </text>
              ) : null}
              <title>{`${a.agent}: ${pct(a.passRate.rate)} [${pct(a.passRate.low)}, ${pct(a.passRate.high)}], n=${a.passRate.n}, mean cost ${usd(cost)}`}</title>
            </g>
          );
        })}
      </svg>
      <SeriesLegend series={rows.map(({ a, i }) => ({ name: a.agent, colour: seriesColour(i) }))} />
    </figure>
  );
}
