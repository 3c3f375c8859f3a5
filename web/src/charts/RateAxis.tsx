import type { ReactNode } from 'react';
import { pct } from '../../../src/features/report/format.js';

const RATE_TICKS = [0, 0.25, 0.5, 0.75, 1];

/** Horizontal grid lines at 0–100% with their labels left of `x1`: the y axis of every pass-rate chart. */
export function RateAxis({ y, x1, x2 }: { y: (v: number) => number; x1: number; x2: number }): ReactNode {
  return RATE_TICKS.map((v) => (
    <g key={v}>
      <line x1={x1} x2={x2} y1={y(v)} y2={y(v)} className="grid" />
      <text x={x1 - 6} y={y(v) + 4} textAnchor="end" className="axis-label">
        {pct(v)}
      </text>
    </g>
  ));
}
