/**
 * How long something took, as every output writes it. One computation of the units; two ways to set
 * them: `spaced` for the reports and the web app (`850 ms`, `1.2 s`, `2 m 5 s`, `1 h 5 m`) and
 * `compact` for terminal tables and progress lines, where columns are narrow (`850ms`, `1.2s`,
 * `2m05s`, `1h05m`). Unknown durations are a dash, as each output writes its blanks.
 */
export type DurationStyle = 'spaced' | 'compact';

export function duration(ms: number | null | undefined, style: DurationStyle = 'spaced'): string {
  const compact = style === 'compact';
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return compact ? '-' : '–';
  if (ms < 1000) return unit(Math.round(ms), 'ms', compact);
  if (ms < 60_000) return unit((ms / 1000).toFixed(1), 's', compact);
  // Rounded once, in the smaller unit shown, so a carry never writes `1 m 60 s`.
  const [big, small, bigUnit, smallUnit] = ms < 3_600_000 ? split(Math.round(ms / 1000), 60, 'm', 's') : split(Math.round(ms / 60_000), 60, 'h', 'm');
  return compact ? `${big}${bigUnit}${String(small).padStart(2, '0')}${smallUnit}` : `${big} ${bigUnit} ${small} ${smallUnit}`;
}

/** The terminal's form, for callers that pass the formatter itself (`spread(…, compactDuration)`). */
export function compactDuration(ms: number): string {
  return duration(ms, 'compact');
}

function unit(value: number | string, name: string, compact: boolean): string {
  return compact ? `${value}${name}` : `${value} ${name}`;
}

function split(total: number, per: number, bigUnit: string, smallUnit: string): [number, number, string, string] {
  return [Math.floor(total / per), total % per, bigUnit, smallUnit];
}
