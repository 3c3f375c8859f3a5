// What every bench prints and computes the same way: the machine's load, min and median.
import { cpus, loadavg } from 'node:os';

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function min(values) {
  return Math.min(...values);
}

/** `load 1/5/15 min: a b c on N cores`: figures taken at a load above the core count are noisy. */
export function loadLine() {
  const [one, five, fifteen] = loadavg();
  const cores = cpus().length;
  const busy = one > cores ? ` (above the ${cores} cores: figures are noisy)` : '';
  return `load 1/5/15 min: ${one.toFixed(2)} ${five.toFixed(2)} ${fifteen.toFixed(2)} on ${cores} cores${busy}`;
}

export function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}
