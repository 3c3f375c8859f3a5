// What every bench prints and computes the same way: the machine's load, min and median.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

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

/**
 * `--help` or `-h`: prints the bench's header comment (what it measures, against what, its usage)
 * and exits 0, before the bench builds or runs anything.
 */
export function answerHelp(moduleUrl, argv = process.argv.slice(2)) {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  const lines = readFileSync(fileURLToPath(moduleUrl), 'utf8').split('\n');
  const header = [];
  for (const line of lines.slice(lines[0]?.startsWith('#!') ? 1 : 0)) {
    if (!line.startsWith('//')) break;
    header.push(line.replace(/^\/\/ ?/, ''));
  }
  process.stdout.write(`${header.join('\n')}\n`);
  process.exit(0);
}
