#!/usr/bin/env node
// What starting the CLI costs, against a bare Node start, side by side in one run (the sides
// alternated process by process, the order reversed every round, so a drift in load falls on all):
//   node -e 0:            the floor: Node itself starting and exiting
//   crucible --version:   bin/crucible.js answering --version (the goal: at most 2x the floor)
//   crucible --help:      the whole program declared (every command's options and help), no action
//   crucible run --help:  one command's help, the way a user finds its flags
// Each process's exit status and output are checked (the version line, the help's usage line); a
// wrong one stops the bench. Needs the built CLI: npm run build && node bench/startup.mjs
// Usage: node bench/startup.mjs [--rounds 30]
// Prints min and median wall ms per side, the median's ratio to the floor's, the CPU ms each side
// used per process (the children's user + system: steadier than wall time under load), and the load
// before and after.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHelp, loadLine, median, min, nowMs } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'crucible.js');
if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  console.error('bench/startup.mjs: dist/ is missing (fix: npm run build first)');
  process.exit(2);
}
const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const rounds = at >= 0 ? Number(args[at + 1]) : 30;
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`--rounds ${args[at + 1]}: not a whole number of rounds (fix: e.g. --rounds 30)`);
  process.exit(2);
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const SIDES = [
  { name: '`node -e 0`', argv: ['-e', '0'], expect: (out) => out === '' },
  { name: '`crucible --version`', argv: [bin, '--version'], expect: (out) => out === `${version}\n` },
  { name: '`crucible --help`', argv: [bin, '--help'], expect: (out) => out.startsWith('Usage: crucible [options] [command]') },
  { name: '`crucible run --help`', argv: [bin, 'run', '--help'], expect: (out) => out.startsWith('Usage: crucible run [options] <taskset>') },
];

/** CPU ms used so far by the children this process has waited for (cutime + cstime of stat(5), 100 ticks a second). */
function childCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Runs one side once; resolves its wall and CPU ms, or rejects when its exit status or output is not the expected one. */
function once(side) {
  return new Promise((done, fail) => {
    const started = nowMs();
    const cpuBefore = childCpuMs();
    const child = spawn(process.execPath, side.argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', fail);
    child.on('close', (code) => {
      const ms = nowMs() - started;
      if (code !== 0 || !side.expect(out))
        return fail(new Error(`${side.name}: exit ${code}, stdout ${JSON.stringify(out.slice(0, 120))}, stderr ${err.trim()}`));
      done({ ms, cpu: childCpuMs() - cpuBefore });
    });
  });
}

const loadBefore = loadLine();
const times = new Map(SIDES.map((side) => [side.name, { wall: [], cpu: [] }]));
// Round -1 is the warm-up (the file cache, Node's code cache), not counted.
for (let round = -1; round < rounds; round++) {
  const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
  for (const side of order) {
    const { ms, cpu } = await once(side);
    if (round < 0) continue;
    times.get(side.name).wall.push(ms);
    times.get(side.name).cpu.push(cpu);
  }
}

const floor = median(times.get(SIDES[0].name).wall);
console.log(`${rounds} rounds, one process per side each, alternated; node ${process.version}`);
console.log(`before: ${loadBefore}`);
console.log(`after:  ${loadLine()}`);
console.log('| command | min ms | median ms | median / `node -e 0` | CPU ms (median) |');
console.log('|---|---:|---:|---:|---:|');
for (const side of SIDES) {
  const { wall, cpu } = times.get(side.name);
  console.log(`| ${side.name} | ${min(wall).toFixed(1)} | ${median(wall).toFixed(1)} | ${(median(wall) / floor).toFixed(2)}x | ${median(cpu).toFixed(0)} |`);
}
