import type { ReactNode } from 'react';
import { pct } from '../../../src/features/report/format.js';
import type { TrendPointView } from '../data/types.js';
import { dodge } from './dodge.js';
import { Label, rowLabels } from './Label.js';
import { RateAxis } from './RateAxis.js';
import { SeriesLegend } from './SeriesLegend.js';
import { linear, seriesColour } from './scale.js';
import { LINE_HEIGHT, widest } from './text.js';

const W = 900;
const PLOT_H = 222;
const M = { l: 110, t: 14 };
/** The series' names at the right end wrap beyond this width. */
const MAX_END_LABEL_W = 220;
const END_GAP = 8;
/** Bucket labels are turned this far so that neighbours do not run into each other. */
const TILT = 30;

/** Pass rate per bucket and series, with the Wilson band: a dip inside the band is noise. */
export function TrendChart({ points, seriesOf }: { points: TrendPointView[]; seriesOf: (p: TrendPointView) => string }): ReactNode {
  const buckets = [...new Map(points.map((p) => [p.bucket, p.at])).entries()].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const index = new Map(buckets.map(([b], i) => [b, i]));
  const series = [...new Set(points.map(seriesOf))].sort();
  const ends = rowLabels(series, MAX_END_LABEL_W);
  const right = ends.width + END_GAP + 8;
  // Room under the plot for the longest bucket label, turned by TILT.
  const bucketW = widest(buckets.map(([b]) => b));
  const tilt = (TILT * Math.PI) / 180;
  const bottomM = 16 + Math.ceil(bucketW * Math.sin(tilt)) + LINE_HEIGHT;
  const left = Math.max(M.l, Math.ceil(bucketW * Math.cos(tilt)));
  const H = M.t + PLOT_H + bottomM;
  const x = linear([0, Math.max(1, buckets.length - 1)], [left + 10, W - right - 10]);
  const y = linear([0, 1], [H - bottomM, M.t]);
  // Every how many buckets a label is written, so that no two turned labels share any column.
  const labelEvery = Math.max(1, Math.ceil((bucketW * Math.cos(tilt) + LINE_HEIGHT) / Math.max(1, x(1) - x(0))));
  const drawn = series.flatMap((s, si) => {
    const pts = points.filter((p) => seriesOf(p) === s && p.rate !== null).sort((a, b) => (index.get(a.bucket) ?? 0) - (index.get(b.bucket) ?? 0));
    return pts.length === 0 ? [] : [{ s, si, pts, last: pts[pts.length - 1] as TrendPointView }];
  });
  const centres = dodge(
    drawn.map((d) => ({ y: y(d.last.rate ?? 0), h: (ends.lines.get(d.s)?.length ?? 1) * LINE_HEIGHT + 1 })),
    0,
    H - bottomM + 8,
  );
  return (
    <figure className="chart">
      <svg data-chart="trend" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label="pass rate over time">
        <RateAxis y={y} x1={left} x2={W - right} />
        {buckets.map(([b], i) =>
          i % labelEvery === 0 ? (
            <text key={b} x={x(i)} y={H - bottomM + 16} textAnchor="end" transform={`rotate(-${TILT} ${x(i)} ${H - bottomM + 16})`} className="axis-label">
              {b}
            </text>
          ) : null,
        )}
        {drawn.map(({ s, si, pts, last }, k) => {
          const colour = seriesColour(si);
          const at = (p: TrendPointView): number => x(index.get(p.bucket) ?? 0);
          const band =
            pts.map((p) => `${at(p)},${y(p.high ?? 0)}`).join(' ') +
            ' ' +
            [...pts]
              .reverse()
              .map((p) => `${at(p)},${y(p.low ?? 0)}`)
              .join(' ');
          const labelY = centres?.[k];
          return (
            <g key={s}>
              <polygon points={band} fill={colour} opacity={0.12} />
              <polyline points={pts.map((p) => `${at(p)},${y(p.rate ?? 0)}`).join(' ')} fill="none" stroke={colour} strokeWidth={2} />
              {pts.map((p) => (
                <circle key={p.bucket} cx={at(p)} cy={y(p.rate ?? 0)} r={3} fill={colour}>
                  <title>{`${s} · ${p.bucket}: ${p.passes}/${p.n} (${pct(p.rate)} [${pct(p.low)}, ${pct(p.high)}])${p.errors ? `, ${p.errors} harness errors` : ''}`}</title>
                </circle>
              ))}
              {labelY !== undefined ? (
                <>
                  {/* A label moved off its series' end is tied back to it. */}
                  {Math.abs(labelY - y(last.rate ?? 0)) > 1 ? (
                    <line x1={at(last) + 4} y1={y(last.rate ?? 0)} x2={W - right + END_GAP - 2} y2={labelY} stroke={colour} strokeWidth={1} opacity={0.6} />
                  ) : null}
                  <Label lines={ends.lines.get(s) ?? [s]} x={W - right + END_GAP} y={labelY} className="point-label" fill={colour} title={s} />
                </>
              ) : null}
            </g>
          );
        })}
      </svg>
      <SeriesLegend series={series.map((s, si) => ({ name: s, colour: seriesColour(si) }))} />
    </figure>
  );
}
