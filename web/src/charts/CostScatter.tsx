import type { ReactNode } from 'react';
import { pct, usd } from '../../../src/features/report/format.js';
import type { RunStats } from '../data/types.js';
import { RateAxis } from './RateAxis.js';
import { linear, seriesColour, ticks } from './scale.js';

const W = 460;
const H = 260;
const M = { l: 48, r: 16, t: 14, b: 40 };
const UNKNOWN_W = 70;

/**
 * Pass rate (with its interval) against mean cost per scored attempt. Agents whose cost is unknown
 * (no usage, or a model without a price) sit in their own band: unknown is not free.
 */
export function CostScatter({ stats }: { stats: RunStats }): ReactNode {
  const rows = stats.agents.map((a, i) => ({ a, i, cost: a.costUsd.stats?.mean ?? null }));
  const known = rows.filter((r) => r.cost !== null);
  const maxCost = Math.max(0, ...known.map((r) => r.cost as number)) || 1;
  const unknown = rows.filter((r) => r.cost === null);
  // The band for unknown costs is drawn only when some agent needs it.
  const bandW = unknown.length > 0 ? UNKNOWN_W : 0;
  const x0 = M.l + bandW;
  const x = linear([0, maxCost * 1.15], [x0 + 14, W - M.r - 10]);
  const y = linear([0, 1], [H - M.b, M.t]);
  return (
    <figure className="chart">
      <svg data-chart="cost" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label="pass rate against mean cost per attempt">
        <RateAxis y={y} x1={M.l} x2={W - M.r} />
        {bandW > 0 ? (
          <>
            <rect x={M.l} y={M.t} width={bandW} height={H - M.b - M.t} className="unknown-band" />
            <text x={M.l + bandW / 2} y={H - M.b + 16} textAnchor="middle" className="axis-label">
              cost unknown
            </text>
          </>
        ) : null}
        {known.length === 0 ? (
          <text x={(x0 + W - M.r) / 2} y={(M.t + H - M.b) / 2} textAnchor="middle" className="axis-label">
            no agent in this run reported a cost
          </text>
        ) : null}
        {(known.length > 0 ? ticks(0, maxCost * 1.15, 3) : []).map((v) => (
          <text key={v} x={x(v)} y={H - M.b + 16} textAnchor="middle" className="axis-label">
            {usd(v)}
          </text>
        ))}
        <text x={(x0 + W) / 2} y={H - 6} textAnchor="middle" className="axis-title">
          mean cost per scored attempt
        </text>
        {rows.map(({ a, i, cost }) => {
          if (!a.passRate) return null;
          const ux = M.l + UNKNOWN_W / 2 + (unknown.findIndex((u) => u.a === a) - (unknown.length - 1) / 2) * 14;
          const cx = cost === null ? ux : x(cost);
          const colour = seriesColour(i);
          return (
            <g key={a.agent}>
              <line x1={cx} x2={cx} y1={y(a.passRate.low)} y2={y(a.passRate.high)} stroke={colour} strokeWidth={2} />
              <circle cx={cx} cy={y(a.passRate.rate)} r={5} fill={colour} />
              <text
                x={cx > W * 0.7 ? cx - 8 : cx + 8}
                y={y(a.passRate.rate) < M.t + 14 ? y(a.passRate.rate) + 16 : y(a.passRate.rate) - 8}
                textAnchor={cx > W * 0.7 ? 'end' : 'start'}
                className="point-label"
                fill={colour}
              >
                {a.agent}
              </text>
              <title>{`${a.agent}: ${pct(a.passRate.rate)} [${pct(a.passRate.low)}, ${pct(a.passRate.high)}], n=${a.passRate.n}, mean cost ${usd(cost)}`}</title>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
