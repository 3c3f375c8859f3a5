#!/usr/bin/env node
// What a sandboxed command costs, against the floor it wraps, side by side in one run (the sides
// alternated command by command, several rounds):
//   bwrap:          Crucible's bwrap executor running `true`
//   bwrap, limits:  the same with every limit set (a cgroup with pids/memory/CPU, rlimits), as
//                   an attempt's commands run
//   bare bwrap:     `bwrap <Crucible's own mounts and flags> -- true` (the same argv Crucible builds,
//                   without its supervisor, limits or Node), spawned the same way
//   minimal bwrap:  `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all -- true`
//   docker:         Crucible's docker executor running `true` in its phase container
//   docker exec:    `docker exec <that same container> true` (the CLI: the floor a user would type)
//   local:          Crucible's local executor (no sandbox), for reference only
// Every command's exit status is checked; a failing one stops the bench.
// Usage: npm run build && node bench/sandbox.mjs [--rounds 5] [--commands 20] [--kinds bwrap,docker,local]
// Prints min and median per command over every command of every round, the CPU time each side
// used per command (this process and its waited-for children: steadier than wall time under
// load), and the load.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHelp, loadLine, median, min, nowMs } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { createExecutor } = await import(join(root, 'dist', 'infra', 'sandbox', 'index.js'));
const { resolveMounts } = await import(join(root, 'dist', 'infra', 'sandbox', 'bwrap-mounts.js'));
const { buildBwrapArgs } = await import(join(root, 'dist', 'infra', 'sandbox', 'bwrap-args.js'));
const { findOnPath } = await import(join(root, 'dist', 'infra', 'sandbox', 'find-on-path.js'));
const { CONTAINER_OWNER_LABEL, ownerLabelValue } = await import(join(root, 'dist', 'infra', 'docker', 'owner.js'));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option('rounds', '5'));
const commands = Number(option('commands', '20'));
const kinds = option('kinds', 'bwrap,docker,local').split(',');
const scratch = mkdtempSync(join(tmpdir(), 'crucible-bench-sandbox-'));
const bwrapPath = findOnPath('bwrap', process.env.PATH);

/** Spawns argv (extra strings written to fds 4, 5, … as bwrap's --ro-bind-data expects); resolves its exit code. */
function spawnChecked(argv, files = []) {
  return new Promise((resolveExit, reject) => {
    const stdio = ['ignore', 'ignore', 'pipe', 'ignore', ...files.map(() => 'pipe')];
    const child = spawn(argv[0], argv.slice(1), { stdio, env: {} });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    files.forEach((text, i) => child.stdio[4 + i].end(text));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolveExit(code) : reject(new Error(`${argv.join(' ').slice(0, 200)}: exit ${code}: ${stderr.trim()}`))));
  });
}

/**
 * CPU milliseconds used so far by this process and by the children it has waited for (theirs
 * include their own waited-for descendants: bwrap, the init, the command). Less load-sensitive
 * than wall time on a shared machine; a docker daemon's work is not in it.
 */
function cpuMs() {
  const { user, system } = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime, fields 16 and 17 of stat(5), in clock ticks (100 per second on Linux).
  const childTicks = Number(fields[13]) + Number(fields[14]);
  return (user + system) / 1000 + childTicks * 10;
}

async function timed(fn) {
  const started = nowMs();
  const cpuBefore = cpuMs();
  const result = await fn();
  if (result && typeof result === 'object' && result.exitCode !== 0) throw new Error(`benchmark command failed: ${JSON.stringify(result)}`);
  return { ms: nowMs() - started, cpu: cpuMs() - cpuBefore };
}

/** An attempt's usual limits: each needs its own setup (cgroup controllers, rlimits). */
const LIMITS = { pids: 512, memoryBytes: 2 * 1024 ** 3, cpuSeconds: 600, fileSizeBytes: 1024 ** 3 };

function layoutFor(name) {
  const dir = join(scratch, name);
  const layout = { writable: [join(dir, 'ws')], hidden: [], readOnly: [], home: join(dir, 'home'), tmp: join(dir, 'tmp') };
  for (const path of [...layout.writable, layout.home, layout.tmp]) mkdirSync(path, { recursive: true });
  return layout;
}

/** The sides of one executor kind: name → a function running one `true`. */
async function sides(kind, layout, executor) {
  const request = { argv: ['true'], cwd: layout.writable[0], timeoutMs: 60_000, network: 'none' };
  const crucible = () => executor.exec(request);
  if (kind === 'bwrap') {
    const limited = createExecutor(kind, { ...layout, limits: LIMITS });
    const mounts = await resolveMounts(layout, 'none', {
      path: process.env.PATH ?? '',
      pyenvRoot: process.env.PYENV_ROOT,
      execPath: process.execPath,
      userHome: homedir(),
      sandboxHome: layout.home,
    });
    const bare = buildBwrapArgs({ mounts, network: 'none', cwd: layout.writable[0], command: ['true'] });
    const minimal = [bwrapPath, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--', 'true'];
    return {
      'crucible bwrap': crucible,
      'crucible bwrap, limits': () => limited.exec(request),
      'bare bwrap, Crucible mounts': () => spawnChecked([bwrapPath, ...bare.args], bare.files),
      'minimal bwrap': () => spawnChecked(minimal),
    };
  }
  if (kind === 'docker') {
    // The phase's container starts with the first command; `docker exec` then uses that same one.
    await crucible();
    const { execFileSync } = await import('node:child_process');
    const id = execFileSync('docker', ['ps', '-q', '--filter', `label=${CONTAINER_OWNER_LABEL}=${ownerLabelValue()}`], { encoding: 'utf8' })
      .trim()
      .split('\n')[0];
    if (!id) throw new Error('no Crucible container found for docker exec');
    return { 'crucible docker': crucible, 'docker exec, same container': () => spawnChecked(['docker', 'exec', id, 'true']) };
  }
  return { 'crucible local': crucible, 'spawn true': () => spawnChecked(['true']) };
}

const samples = new Map();
/** Side → total CPU ms over its counted commands. */
const cpuSamples = new Map();
for (const kind of kinds) {
  for (let r = -1; r < rounds; r++) {
    const layout = layoutFor(`${kind}-${r}`);
    const executor = createExecutor(kind, layout);
    try {
      const named = Object.entries(await sides(kind, layout, executor));
      // Round -1 warms the page cache, the image and bwrap's first start: not counted.
      for (let i = 0; i < (r < 0 ? 2 : commands); i++) {
        // Alternated, and the order reversed every command, so a drift in load hits each side alike.
        const order = i % 2 === 0 ? named : [...named].reverse();
        for (const [name, run] of order) {
          const { ms, cpu } = await timed(run);
          if (r >= 0) {
            samples.set(name, [...(samples.get(name) ?? []), ms]);
            cpuSamples.set(name, (cpuSamples.get(name) ?? 0) + cpu);
          }
        }
      }
    } finally {
      await executor.close();
    }
  }
}

console.log(`${rounds} rounds × ${commands} \`true\` per side, alternated; node ${process.version}; ${loadLine()}`);
console.log('| side | min ms | median ms | median / floor | CPU ms per command |');
console.log('|---|---:|---:|---:|---:|');
for (const kind of kinds) {
  const names = [...samples.keys()].filter((n) => n.includes(kind) || (kind === 'local' && n === 'spawn true'));
  // The floor is the first side that is not Crucible's (bare bwrap with Crucible's mounts, docker exec, a bare spawn).
  const floorName = names.find((n) => !n.startsWith('crucible'));
  const floor = floorName ? median(samples.get(floorName)) : undefined;
  for (const name of names) {
    const values = samples.get(name);
    const ratio = floor && name.startsWith('crucible') ? `${(median(values) / floor).toFixed(2)}×` : '';
    const cpu = (cpuSamples.get(name) ?? 0) / values.length;
    console.log(`| ${name} | ${min(values).toFixed(1)} | ${median(values).toFixed(1)} | ${ratio} | ${cpu.toFixed(1)} |`);
  }
}
rmSync(scratch, { recursive: true, force: true });
