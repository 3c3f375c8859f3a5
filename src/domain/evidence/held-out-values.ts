/**
 * The held-out value check, the harness's side (docs/tasks.md#held-out-values). One fresh
 * interpreter runs every declared call of the function under test in the sandbox; its runner
 * (held-out-values-python.ts, held-out-values-node.ts) lies in a directory of the harness that the
 * sandbox shows read-only, is loaded before any code of the repository, and writes each result, with
 * exact builtin types only, to a Unix socket the harness listens on. The harness takes the first
 * connection (made before the repository's modules are imported) as the runner's, reads one record
 * per call, and compares the value with `expect` itself: the expected values never enter the
 * sandbox, and no equality the code under test defines is ever called. What the runner never
 * writes on the channel (a second connection, a repeated call, a malformed record) is kept as
 * forged; a value the runner refused as a lie is evidence of tampering (the runner_reach check).
 */
import { writeFile } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import type { Executor } from '../../infra/sandbox/index.js';
import type { HeldOutValueResult, HeldOutValuesEvidence, HeldOutValuesSpec, JsonValue } from '../../core/types/index.js';
import { PYTHON_VALUES_SOURCE, VALUES_MODULE, pythonValuesBoot } from './held-out-values-python.js';
import { closeChannel, listenChannel } from './channel-close.js';
import { NODE_VALUES_SOURCE } from './held-out-values-node.js';
import { prepareNodeSentinel } from './node-sentinel.js';
import { pythonSafePathEnv } from './python-safe-path.js';
import { startSentinel } from './python-sentinel.js';

export interface ValueRunRequest {
  executor: Executor;
  workspace: string;
  spec: HeldOutValuesSpec;
  /** A fresh directory with a short path (makeSentinelDir), outside the workspace, read-only in the sandbox. */
  dir: string;
  /** Writable in the sandbox, outside the workspace: where the Node sentinel's files go. */
  resultsDir: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The Python sentinel's directory (another fresh read-only one) and the change's files. */
  sentinel?: { dir: string; changeFiles: readonly string[]; roots: readonly string[] };
}

const SOCKET = 'values.sock';
const MAX_CHANNEL_BYTES = 8 * 1024 * 1024;
const MAX_DETAIL = 300;
const MAX_OUTPUT_TAIL = 4096;
const GRACE_MS = 5_000;

/** `module:attr` of a declared call, split at the last colon (a Node path has none of its own). */
export function splitCall(call: string): { module: string; attr: string } {
  const at = call.lastIndexOf(':');
  return { module: call.slice(0, at), attr: call.slice(at + 1) };
}

export async function runHeldOutValues(req: ValueRunRequest): Promise<HeldOutValuesEvidence> {
  const { spec, dir } = req;
  const socketPath = join(dir, SOCKET);
  const calls = spec.calls.map((c) => ({ ...splitCall(c.call), args: c.args }));
  // Only what to call crosses into the sandbox; what it must return stays here.
  await writeFile(join(dir, 'calls.json'), JSON.stringify({ socket: socketPath, root: spec.root, calls }), { mode: 0o444 });
  const channel = new ValueChannel(spec.calls.length);
  const server = await listenChannel(socketPath, (socket) => channel.accept(socket));
  const sentinel = req.sentinel
    ? await startSentinel(req.sentinel.dir, { roots: req.sentinel.roots, changeFiles: req.sentinel.changeFiles, reports: [] })
    : undefined;
  try {
    const { argv, env } = await launch(req, sentinel?.env);
    const result = await req.executor.exec({
      argv,
      cwd: req.workspace,
      env: { ...env, CI: 'true' },
      timeoutMs: req.timeoutMs,
      maxOutputBytes: 256 * 1024,
      network: 'none',
      ...(req.signal ? { signal: req.signal } : {}),
    });
    const seen = await sentinel?.collect();
    const records = await channel.collect(server, GRACE_MS);
    const output = `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`;
    return {
      runtime: spec.runtime,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      results: spec.calls.map((c, i) => judgeRecord(c.call, records.byCall[i], c.expect)),
      forged: records.forged,
      ...(seen && (seen.processes > 0 || seen.garbled !== undefined) ? { sentinel: seen } : {}),
      ...(result.limitExceeded ? { limitExceeded: result.limitExceeded } : {}),
      outputTail: output.length > MAX_OUTPUT_TAIL ? `…${output.slice(-MAX_OUTPUT_TAIL)}` : output,
    };
  } finally {
    if (server.listening) await channel.collect(server, 0);
    await sentinel?.collect(0).catch(() => undefined);
  }
}

async function launch(req: ValueRunRequest, sentinelEnv: Record<string, string> | undefined): Promise<{ argv: string[]; env: Record<string, string> }> {
  if (req.spec.runtime === 'python') {
    await writeFile(join(req.dir, `${VALUES_MODULE}.py`), PYTHON_VALUES_SOURCE, { mode: 0o444 });
    // -c: the working directory is not on the import path (safe-path mode), and the boot's own
    // top-level frame imports the called modules, as a test command's `python -c` would.
    return { argv: ['python3', '-c', pythonValuesBoot(req.dir)], env: sentinelEnv ?? (await pythonSafePathEnv(req.resultsDir)) };
  }
  const runner = join(req.dir, 'values.mjs');
  await writeFile(runner, NODE_VALUES_SOURCE, { mode: 0o444 });
  const node = await prepareNodeSentinel(req.resultsDir);
  return { argv: node.argv(`exec node '${runner}'`), env: {} };
}

/** A tagged value as the runners write it. */
export type Tagged =
  ['none'] | ['undefined'] | ['bool', boolean] | ['int', string] | ['float', string] | ['str', string] | ['list', Tagged[]] | ['dict', Array<[string, Tagged]>];

type CallRecord = { value: Tagged } | { raised: string } | { lying: string } | { unserialisable: string };

/** Every connection's records: the first connection's, one per call, are the runner's. */
class ValueChannel {
  readonly byCall: Array<CallRecord | undefined>;
  readonly forged: string[] = [];
  private connections: Array<{ socket: Socket; closed: Promise<void> }> = [];

  constructor(calls: number) {
    this.byCall = new Array<CallRecord | undefined>(calls).fill(undefined);
  }

  accept(socket: Socket): void {
    const first = this.connections.length === 0;
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    this.connections.push({ socket, closed });
    socket.on('error', () => undefined);
    socket.on('close', () => resolveClosed());
    if (!first) {
      this.forge('a second connection to the value channel');
      socket.destroy();
      return;
    }
    let buffered = '';
    let bytes = 0;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      bytes += Buffer.byteLength(chunk);
      if (bytes > MAX_CHANNEL_BYTES) {
        this.forge(`more than ${MAX_CHANNEL_BYTES} bytes on the value channel`);
        socket.destroy();
        return;
      }
      const lines = (buffered + chunk).split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) this.line(line);
    });
    socket.on('end', () => {
      if (buffered !== '') this.forge('an unfinished record on the value channel');
    });
  }

  private forge(what: string): void {
    if (this.forged.length < 20) this.forged.push(what);
  }

  private line(line: string): void {
    const record = parseRecord(line);
    if (record === undefined || record.i >= this.byCall.length) return this.forge(`a record the runner never writes: ${line.slice(0, 120)}`);
    if (this.byCall[record.i] !== undefined) return this.forge(`a second result for call ${record.i}`);
    this.byCall[record.i] = record.record;
  }

  async collect(server: Server, graceMs: number): Promise<{ byCall: Array<CallRecord | undefined>; forged: string[] }> {
    await closeChannel(server, this.connections, graceMs);
    return { byCall: this.byCall, forged: this.forged };
  }
}

function parseRecord(line: string): { i: number; record: CallRecord } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, unknown>;
  const keys = Object.keys(fields);
  const i = fields.i;
  if (keys.length !== 2 || typeof i !== 'number' || !Number.isInteger(i) || i < 0) return undefined;
  const kind = keys.find((k) => k !== 'i');
  const payload = kind === undefined ? undefined : fields[kind];
  if (kind === 'value') return isTagged(payload, 0) ? { i, record: { value: payload } } : undefined;
  if ((kind === 'raised' || kind === 'lying' || kind === 'unserialisable') && typeof payload === 'string')
    return { i, record: { [kind]: payload.slice(0, MAX_DETAIL) } as CallRecord };
  return undefined;
}

function isTagged(value: unknown, depth: number): value is Tagged {
  if (!Array.isArray(value) || depth > 250) return false;
  const [tag, payload] = value as unknown[];
  if (value.length === 1) return tag === 'none' || tag === 'undefined';
  if (value.length !== 2) return false;
  switch (tag) {
    case 'bool':
      return typeof payload === 'boolean';
    case 'int':
      return typeof payload === 'string' && /^-?\d+$/.test(payload);
    case 'float':
    case 'str':
      return typeof payload === 'string';
    case 'list':
      return Array.isArray(payload) && payload.every((v) => isTagged(v, depth + 1));
    case 'dict':
      return Array.isArray(payload) && payload.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && isTagged(p[1], depth + 1));
    default:
      return false;
  }
}

function judgeRecord(call: string, record: CallRecord | undefined, expect: JsonValue): HeldOutValueResult {
  if (record === undefined) return { call, outcome: 'missing', detail: 'no result reached the harness (the process ended or timed out first)' };
  if ('raised' in record) return { call, outcome: 'raised', detail: `raised ${record.raised}` };
  if ('lying' in record) return { call, outcome: 'lying', detail: record.lying };
  if ('unserialisable' in record) return { call, outcome: 'unserialisable', detail: record.unserialisable };
  const shown = render(record.value);
  return { call, outcome: sameValue(record.value, expect) ? 'equal' : 'differs', detail: shown.length > MAX_DETAIL ? `${shown.slice(0, MAX_DETAIL)}…` : shown };
}

/** Numbers by value (2 and 2.0 are one number; NaN equals NaN); lists by order; dicts by their keys. */
export function sameValue(value: Tagged, expect: JsonValue): boolean {
  switch (value[0]) {
    case 'none':
      return expect === null;
    case 'undefined':
      return false;
    case 'bool':
    case 'str':
      return value[1] === expect;
    case 'int':
      return typeof expect === 'number' && Number.isInteger(expect) && BigInt(value[1]) === BigInt(expect);
    case 'float': {
      const n = parseFloatText(value[1]);
      return typeof expect === 'number' && (n === expect || (Number.isNaN(n) && Number.isNaN(expect)));
    }
    case 'list':
      return Array.isArray(expect) && expect.length === value[1].length && value[1].every((v, i) => sameValue(v, expect[i] as JsonValue));
    case 'dict': {
      if (typeof expect !== 'object' || expect === null || Array.isArray(expect)) return false;
      const keys = Object.keys(expect);
      const pairs = new Map(value[1]);
      return (
        pairs.size === value[1].length &&
        pairs.size === keys.length &&
        keys.every((k) => pairs.has(k) && sameValue(pairs.get(k) as Tagged, expect[k] as JsonValue))
      );
    }
  }
}

/** Python's repr and JavaScript's String of a number. */
function parseFloatText(text: string): number {
  const special: Record<string, number> = { nan: NaN, NaN: NaN, inf: Infinity, Infinity: Infinity, '-inf': -Infinity, '-Infinity': -Infinity };
  return special[text] ?? Number(text);
}

/** The value as JSON a reader recognises (a Python int stays exact, NaN and infinities by name). */
function render(value: Tagged): string {
  switch (value[0]) {
    case 'none':
      return 'null';
    case 'undefined':
      return 'undefined';
    case 'bool':
      return String(value[1]);
    case 'int':
    case 'float':
      return value[1];
    case 'str':
      return JSON.stringify(value[1]);
    case 'list':
      return `[${value[1].map(render).join(', ')}]`;
    case 'dict':
      return `{${value[1].map(([k, v]) => `${JSON.stringify(k)}: ${render(v)}`).join(', ')}}`;
  }
}
