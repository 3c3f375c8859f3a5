import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SentinelWrite } from '../../core/types/index.js';
import { nodeSentinelSource } from './node-sentinel-source.js';

/** More records than this are not read: one refused write is already the evidence. */
const MAX_RECORDS_BYTES = 256 * 1024;
const MAX_WRITES = 50;

/**
 * Finds the next `node` on PATH after its own directory and runs it with the sentinel preloaded,
 * whatever the test script did to NODE_OPTIONS.
 */
function shimSource(dir: string): string {
  return `#!/bin/sh
# Written by crucible for a verification run; see src/domain/evidence/node-sentinel.ts.
crucible_dir='${dir}'
IFS=:
for crucible_d in $PATH; do
  if [ "$crucible_d" != "$crucible_dir" ] && [ -n "$crucible_d" ] && [ -f "$crucible_d/node" ] && [ -x "$crucible_d/node" ]; then
    unset IFS
    exec "$crucible_d/node" --require "$crucible_dir/sentinel.cjs" "$@"
  fi
done
echo "crucible: no node on PATH after $crucible_dir" >&2
exit 127
`;
}

export interface NodeSentinel {
  /** The argv that runs `command` under `sh -c` with the shim first on PATH and the preload in NODE_OPTIONS. */
  argv(command: string): string[];
  /**
   * NODE_OPTIONS with the preload, for a program run directly (no shell assumed: a Harbor verifier
   * by its shebang), where only the first layer can be given.
   */
  readonly nodeOptions: string;
  /** The writes the sentinel refused, file paths relative to `workspace` when inside it. */
  writes(workspace: string): Promise<SentinelWrite[]>;
}

/**
 * Prepares the Node sentinel of one verification run in a fresh directory of `resultsDir` (which
 * every executor mounts at the same path, outside the workspace, so no file of the repository can
 * change it): the preload, a `node` shim that adds `--require` of it, and the file it records to.
 * Two layers put it in every Node process: NODE_OPTIONS (which children inherit, even those started
 * from `process.execPath`), and the shim first on PATH (for a script that resets NODE_OPTIONS;
 * `npm` and `npx` start node through PATH too). Each loads the same file once.
 */
export async function prepareNodeSentinel(resultsDir: string): Promise<NodeSentinel> {
  const dir = join(resultsDir, `node-${randomBytes(8).toString('hex')}`);
  const records = join(dir, `writes-${randomBytes(8).toString('hex')}.jsonl`);
  const preload = join(dir, 'sentinel.cjs');
  if (/['"\\\s]/.test(dir)) throw new Error(`results directory ${resultsDir} has a quote, backslash or space: the Node sentinel cannot be passed there`);
  await mkdir(dir);
  await writeFile(preload, nodeSentinelSource(records), { mode: 0o444 });
  await writeFile(join(dir, 'node'), shimSource(dir), { mode: 0o555 });
  return {
    argv: (command) => [
      'sh',
      '-c',
      'PATH="$1:$PATH"; NODE_OPTIONS="--require $1/sentinel.cjs${NODE_OPTIONS:+ $NODE_OPTIONS}"; export PATH NODE_OPTIONS; exec sh -c "$2"',
      'crucible-sentinel',
      dir,
      command,
    ],
    nodeOptions: `--require ${preload}`,
    writes: async (workspace) => parseWrites(await readRecords(records), workspace),
  };
}

async function readRecords(path: string): Promise<string> {
  let handle;
  try {
    // The directory is writable inside the sandbox: never follow a link or wait on a FIFO put there.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return '';
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return '';
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_RECORDS_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** One write per target and place, in the order first seen; lines that are not records are skipped. */
export function parseWrites(text: string, workspace: string): SentinelWrite[] {
  const seen = new Map<string, SentinelWrite>();
  for (const line of text.split('\n')) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof record !== 'object' || record === null) continue;
    const { target, via, at } = record as Record<string, unknown>;
    if (typeof target !== 'string' || typeof via !== 'string') continue;
    const place = typeof at === 'string' ? frameLocation(at, workspace) : undefined;
    const write: SentinelWrite = { target: target.slice(0, 200), via: via.slice(0, 60), ...place };
    const key = `${write.target}\n${write.via}\n${write.file ?? ''}:${write.line ?? ''}`;
    if (!seen.has(key)) seen.set(key, write);
    if (seen.size >= MAX_WRITES) break;
  }
  return [...seen.values()];
}

/** `at fn (file:///w/src/a.mjs:3:9)` or `at /w/src/a.js:3:9` → `{ file: 'src/a.mjs', line: 3 }`. */
export function frameLocation(frame: string, workspace: string): { file: string; line: number } | undefined {
  const match = /\(?((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?$/.exec(frame);
  if (!match?.[1] || !match[2]) return undefined;
  let file = match[1];
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch {
      return undefined;
    }
  }
  if (isAbsolute(file)) {
    const rel = relative(workspace, file);
    if (rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)) file = rel.split(sep).join('/');
  }
  return { file: file.slice(0, 300), line: Number(match[2]) };
}
