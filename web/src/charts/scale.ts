import type { Cause } from '../data/types.js';

/** Pass rate → fill: red at 0, amber mid-way, green at 1 (light, so dark text stays readable). */
export function rateFill(rate: number): string {
  const hue = Math.round(Math.max(0, Math.min(1, rate)) * 125);
  return `hsl(${hue} 62% 78%)`;
}

export function linear(domain: [number, number], range: [number, number]): (v: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** Round tick values for an axis from 0 (or min) to max. */
export function ticks(min: number, max: number, count = 4): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

export const SERIES_COLOURS = ['#0969da', '#bf3989', '#1a7f37', '#bc4c00', '#8250df', '#0a7ea4', '#cf222e', '#4d2d00'];

export function seriesColour(i: number): string {
  return SERIES_COLOURS[i % SERIES_COLOURS.length] ?? '#0969da';
}

export const CAUSE_COLOURS: Record<Cause, string> = {
  passed: '#2da44e',
  tests_failed: '#cf222e',
  regression: '#a40e26',
  tampered: '#6e011a',
  policy_violation: '#8250df',
  no_changes: '#8c959f',
  agent_timeout: '#bc4c00',
  max_turns: '#d4a72c',
  budget_exceeded: '#953800',
  context_exceeded: '#e16f24',
  agent_crashed: '#57606a',
  patch_not_applied: '#424a53',
  resource_exceeded: '#7d4e00',
  task_error: '#afb8c1',
  harness_error: '#d0d7de',
  provider_error: '#eaeef2',
};
