/*
 * Numbers as people read them, the same in the terminal, the Markdown report and the web app (which
 * imports this file directly, so it must stay free of Node APIs). Missing figures print as `–`,
 * never as 0.
 */

const MISSING = '–';

function missing(v: number | null | undefined): v is null | undefined {
  return v === null || v === undefined || !Number.isFinite(v);
}

/**
 * Dollars: two decimals from $1 up (`$12.34`); below $1 up to four, trailing zeros dropped down to
 * two (`$0.50`, `$0.125`, `$0.0019`), since per-attempt costs of cheap models live in the fourth
 * decimal; `<$0.0001` for a cost that would otherwise print as zero.
 */
export function usd(v: number | null | undefined): string {
  if (missing(v)) return MISSING;
  if (v < 0) return `-${usd(-v)}`;
  if (v === 0) return '$0.00';
  if (v < 0.00005) return '<$0.0001';
  if (v >= 1) return `$${v.toFixed(2)}`;
  const [whole, decimals = ''] = v.toFixed(4).split('.');
  return `$${whole}.${decimals.replace(/0+$/, '').padEnd(2, '0')}`;
}

const UNITS: ReadonlyArray<[number, string]> = [
  [1e3, 'k'],
  [1e6, 'M'],
  [1e9, 'B'],
];

/** Counts (tokens, turns): whole below 1000, then one decimal with a unit: `950`, `1.2k`, `12.3k`, `1.5M`. */
export function count(v: number | null | undefined): string {
  if (missing(v)) return MISSING;
  if (v < 0) return `-${count(-v)}`;
  const whole = Math.round(v);
  if (whole < 1000) return String(whole);
  // Smallest unit whose one-decimal figure stays below 1000 (999_960 is `1.0M`, not `1000.0k`).
  for (const [size, unit] of UNITS) {
    const figure = (v / size).toFixed(1);
    if (Number(figure) < 1000 || unit === 'B') return `${figure}${unit}`;
  }
  return String(whole);
}

/** A rate in [0, 1] as a percentage: pct(0.8237) is `82%`, pct(0.8237, 1) is `82.4%`. */
export function pct(rate: number | null | undefined, digits = 0): string {
  if (missing(rate)) return MISSING;
  return `${(rate * 100).toFixed(digits)}%`;
}
