import type { ReactNode } from 'react';
import { pct } from '../../../src/features/report/format.js';
import type { TrendPointView } from '../data/types.js';
import { RateAxis } from './RateAxis.js';
import { NameLegend, agentLabels } from './NameLegend.js';
import { linear, seriesColour } from './scale.js';

const W = 900;
const H = 300;
const M = { l: 110, r: 160, t: 14, b: 64 };

/** Pass rate per bucket and series, with the Wilson band: a dip inside the band is noise. */
export function TrendChart({ points, seriesOf }: { points: TrendPointView[]; seriesOf: (p: TrendPointView) => string }): ReactNode {
  const buckets = [...new Map(points.map((p) => [p.bucket, p.at])).entries()].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const index = new Map(buckets.map(([b], i) => [b, i]));
  const series = [...new Set(points.map(seriesOf))].sort();
  const labels = agentLabels(series, 22);
  const x = linear([0, Math.max(1, buckets.length - 1)], [M.l + 10, W - M.r - 10]);
  const y = linear([0, 1], [H - M.b, M.t]);
  const labelEvery = Math.max(1, Math.ceil(buckets.length / 10));
  return (
    <figure className="chart">
      <svg data-chart="trend" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label="pass rate over time">
        <RateAxis y={y} x1={M.l} x2={W - M.r} />
        {buckets.map(([b], i) =>
          i % labelEvery === 0 ? (
            <text key={b} x={x(i)} y={H - M.b + 16} textAnchor="end" transform={`rotate(-30 ${x(i)} ${H - M.b + 16})`} className="axis-label">
              {b.length > 16 ? `${b.slice(0, 15)}…` : b}
            </text>
          ) : null,
        )}
        {series.map((s, si) => {
          const pts = points.filter((p) => seriesOf(p) === s && p.rate !== null).sort((a, b) => (index.get(a.bucket) ?? 0) - (index.get(b.bucket) ?? 0));
          if (pts.length === 0) return null;
          const colour = seriesColour(si);
          const at = (p: TrendPointView): number => x(index.get(p.bucket) ?? 0);
          const band =
            pts.map((p) => `${at(p)},${y(p.high ?? 0)}`).join(' ') +
            ' ' +
            [...pts]
              .reverse()
              .map((p) => `${at(p)},${y(p.low ?? 0)}`)
              .join(' ');
          const last = pts[pts.length - 1] as TrendPointView;
          return (
            <g key={s}>
              <polygon points={band} fill={colour} opacity={0.12} />
              <polyline points={pts.map((p) => `${at(p)},${y(p.rate ?? 0)}`).join(' ')} fill="none" stroke={colour} strokeWidth={2} />
              {pts.map((p) => (
                <circle key={p.bucket} cx={at(p)} cy={y(p.rate ?? 0)} r={3} fill={colour}>
                  <title>{`${s} · ${p.bucket}: ${p.passes}/${p.n} (${pct(p.rate)} [${pct(p.low)}, ${pct(p.high)}])${p.errors ? `, ${p.errors} harness errors` : ''}`}</title>
                </circle>
              ))}
              <text x={W - M.r + 8} y={y(last.rate ?? 0) + 4} className="point-label" fill={colour}>
                {labels.get(s) ?? s}
                <title>{s}</title>
              </text>
            </g>
          );
        })}
      </svg>
      <NameLegend labels={labels} />
    </figure>
  );
}
