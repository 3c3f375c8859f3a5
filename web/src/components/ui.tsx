import type { ReactNode } from 'react';
import type { Loaded } from '../data/use-data.js';
import type { Verdict } from '../data/types.js';

export function VerdictBadge({ verdict }: { verdict: Verdict }): ReactNode {
  return <span className={`badge verdict-${verdict.toLowerCase()}`}>{verdict}</span>;
}

export function SeverityBadge({ severity }: { severity: string }): ReactNode {
  return <span className={`badge severity-${severity}`}>{severity}</span>;
}

export function CauseTag({ cause }: { cause: string }): ReactNode {
  return <code className={`cause cause-${cause}`}>{cause}</code>;
}

/** Renders the loading and error states, and the children once ready. */
export function Await<T>({ data, children }: { data: Loaded<T>; children: (value: T) => ReactNode }): ReactNode {
  if (data.state === 'loading')
    return (
      <p className="loading" role="status">
        Loading…
      </p>
    );
  if (data.state === 'error')
    return (
      <p className="error" role="alert">
        {data.error}
      </p>
    );
  return children(data.value);
}

export function Section({ title, children, id, note }: { title: string; children: ReactNode; id?: string; note?: ReactNode }): ReactNode {
  return (
    <section className="section" id={id}>
      <h2>{title}</h2>
      {note ? <p className="muted">{note}</p> : null}
      {children}
    </section>
  );
}

/** A rate with its interval, as a small bar: band = interval, dot = point estimate. */
export function IntervalBar({ rate, low, high, width = 120 }: { rate: number | null; low: number | null; high: number | null; width?: number }): ReactNode {
  if (rate === null) return <span className="muted">–</span>;
  const x = (v: number): number => 2 + v * (width - 4);
  return (
    <svg className="interval-bar" width={width} height={14} role="img" aria-label={`${Math.round(rate * 100)}%`}>
      <rect x={2} y={6} width={width - 4} height={2} className="track" />
      {low !== null && high !== null ? <rect x={x(low)} y={3} width={Math.max(1, x(high) - x(low))} height={8} rx={2} className="band" /> : null}
      <circle cx={x(rate)} cy={7} r={3.5} className="dot" />
    </svg>
  );
}

/** PASS / FAIL / ERROR proportions as one thin stacked bar. */
export function CountsBar({ counts, width = 120 }: { counts: Record<Verdict, number>; width?: number }): ReactNode {
  const total = counts.PASS + counts.FAIL + counts.ERROR;
  if (total === 0) return <span className="muted">–</span>;
  let x = 0;
  const parts = (['PASS', 'FAIL', 'ERROR'] as const).map((v) => {
    const w = (counts[v] / total) * width;
    const rect = <rect key={v} x={x} y={0} width={w} height={10} className={`fill-${v.toLowerCase()}`} />;
    x += w;
    return rect;
  });
  return (
    <svg width={width} height={10} className="counts-bar" role="img" aria-label={`${counts.PASS} passed, ${counts.FAIL} failed, ${counts.ERROR} errored`}>
      {parts}
    </svg>
  );
}
