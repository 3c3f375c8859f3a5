import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readSync, writeFileSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { schemaError } from '../../core/input/index.js';
import type { CanonicalRequest } from './canonical.js';
import type { HeaderMap } from './headers.js';
import type { Api, TokenUsage } from './usage-readers.js';

/**
 * A cassette is one JSONL file per session (cassettePath: `<task>/<agent>/<trial>.jsonl`): a header line, then one line per exchange in the order
 * the requests arrived (`seq`). Responses are stored as the upstream sent them, SSE streams as the
 * exact text of each event, so replay is byte-identical and re-metered from the same bytes.
 */
export const CASSETTE_VERSION = 1;

export interface CassetteHeader {
  type: 'cassette';
  version: typeof CASSETTE_VERSION;
  key: string;
  recordedAt: string;
}

export interface RecordedResponse {
  status: number;
  /** Minus credentials, cookies, framing and account headers. */
  headers: HeaderMap;
  /** A non-streamed body; base64 only when it is not UTF-8 text. */
  body?: string;
  bodyEncoding?: 'base64';
  /** A streamed body: the raw text of each SSE event, terminators included. */
  events?: string[];
}

export interface CassetteExchange {
  type: 'exchange';
  seq: number;
  api: Api;
  request: { hash: string; canonical: CanonicalRequest };
  response: RecordedResponse;
  /** Time to last byte when recorded; replay reports it again so reports are reproducible. */
  latencyMs: number;
  /** For people reading the file; replay re-reads usage from the response itself. */
  model?: string;
  usage?: TokenUsage;
}

const headerMapSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const exchangeSchema = z.object({
  type: z.literal('exchange'),
  seq: z.number().int().nonnegative(),
  api: z.enum(['chat', 'responses', 'messages', 'gemini', 'converse', 'other']),
  request: z.object({
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    canonical: z.looseObject({ upstream: z.string(), method: z.string(), path: z.string() }),
  }),
  response: z.object({
    status: z.number().int(),
    headers: headerMapSchema,
    body: z.string().optional(),
    bodyEncoding: z.literal('base64').optional(),
    events: z.array(z.string()).optional(),
  }),
  latencyMs: z.number().nonnegative(),
  model: z.string().optional(),
  usage: z.record(z.string(), z.number()).optional(),
});
const headerSchema = z.object({
  type: z.literal('cassette'),
  version: z.literal(CASSETTE_VERSION),
  key: z.string(),
  recordedAt: z.string(),
});

export class CassetteError extends Error {
  override name = 'CassetteError';
}

/**
 * A session's cassette key: its parts (`[task, agent, trial]`), or one string of them joined by
 * `/` (`task/agent/0`). Given as parts, a part may hold `/` itself (an agent named after a model
 * id such as `openrouter:anthropic/claude-sonnet-4.5`) and stays one part.
 */
export type CassetteKey = string | readonly string[];

export function cassetteKeyParts(key: CassetteKey): string[] {
  return typeof key === 'string' ? key.split('/') : [...key];
}

/** The key as people read it, and as the cassette's header records it. */
export function cassetteKeyText(key: CassetteKey): string {
  return cassetteKeyParts(key).join('/');
}

/** Encoded parts longer than this keep their head and a hash of the whole: a file name holds at most 255 bytes. */
const MAX_PART_CHARS = 150;

/**
 * One key part as a file or directory name. Every character but `A-Z a-z 0-9 . _ -` is written as
 * its UTF-8 bytes in `%XX` (a lone surrogate, which has no UTF-8, as `%uXXXX`), so distinct parts
 * stay distinct (`%` itself is `%25`) and a name never holds `/`; a leading `.` (`.`, `..`, a
 * hidden name) and a `.jsonl` ending (a directory that would look like a cassette) are escaped the
 * same way. Names are compared byte for byte: on a case-insensitive file system (macOS, Windows),
 * keys that differ only in case share a file.
 */
function partName(part: string): string {
  let out = '';
  for (const ch of part) {
    const code = ch.codePointAt(0) as number;
    if (/^[A-Za-z0-9._-]$/.test(ch)) out += ch;
    else if (code >= 0xd800 && code <= 0xdfff) out += `%u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (out.startsWith('.')) out = `%2E${out.slice(1)}`;
  if (out.endsWith('.jsonl')) out = `${out.slice(0, -'.jsonl'.length)}%2Ejsonl`;
  // `~` is never in an encoded name otherwise (it is %7E), so a shortened name is no other part's.
  if (out.length > MAX_PART_CHARS) out = `${out.slice(0, MAX_PART_CHARS)}~${createHash('sha256').update(part).digest('hex')}`;
  return out;
}

/**
 * Where a session's cassette is written: `DIR/<task>/<agent>/<trial>.jsonl`, one directory level
 * per key part, each part encoded (partName), so the path is confined to `dir` and distinct keys
 * never share a file (nor is one key's file another's directory).
 */
export function cassettePath(dir: string, key: CassetteKey): string {
  const parts = cassetteKeyParts(key);
  const empty = parts.findIndex((part) => part === '');
  if (empty >= 0) throw new CassetteError(`cassette key "${cassetteKeyText(key)}": part ${empty + 1} is empty (fix: give every part of the key a name)`);
  const names = parts.map(partName);
  names[names.length - 1] += '.jsonl';
  return join(dir, ...names);
}

/** Where cassettes were written before they had folders: one flat file named by the URL-encoded key (`task%2Fagent%2F0.jsonl`). */
export function flatCassettePath(dir: string, key: CassetteKey): string {
  return join(dir, `${encodeURIComponent(cassetteKeyText(key))}.jsonl`);
}

/** The recording of a key in `dir`, in the folder layout or, for a directory recorded before it, the flat one; undefined when neither exists. */
export function findCassette(dir: string, key: CassetteKey): string | undefined {
  const file = cassettePath(dir, key);
  if (existsSync(file)) return file;
  const flat = flatCassettePath(dir, key);
  return existsSync(flat) ? flat : undefined;
}

export class CassetteWriter {
  constructor(
    readonly file: string,
    key: string,
    /** Key values to blank out wherever they appear (e.g. echoed in an upstream error message). */
    private readonly secrets: () => readonly string[],
  ) {
    mkdirSync(dirname(file), { recursive: true });
    const header: CassetteHeader = { type: 'cassette', version: CASSETTE_VERSION, key, recordedAt: new Date().toISOString() };
    writeFileSync(file, this.line(header));
  }

  append(exchange: CassetteExchange): void {
    // Synchronous so a crash mid-run still leaves every finished exchange on disk.
    appendFileSync(this.file, this.line(exchange));
  }

  private line(record: CassetteHeader | CassetteExchange): string {
    let text = JSON.stringify(record);
    for (const secret of this.secrets()) text = text.split(secret).join('[REDACTED]');
    return text + '\n';
  }
}

const CASSETTE_FILE = { reference: 'docs/agents.md#record-and-replay; record the cassette again with --record' };

/** Above this a cassette is not a recording of one attempt's model traffic, and is refused unread. */
export const MAX_CASSETTE_BYTES = 256 * 1024 * 1024;

export interface Cassette {
  header: CassetteHeader;
  exchanges: CassetteExchange[];
}

/**
 * Opened without blocking (a FIFO with no writer would hold the open forever) and judged by the
 * opened file's own stat, so a FIFO, a device (`/dev/zero`, which never ends) or a directory behind
 * a symlink is refused before a byte is read, and a file swapped in after a check is still judged.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

function checkCassetteStat(file: string, stat: Stats): void {
  if (!stat.isFile()) throw new CassetteError(`${file}: not a regular file (a ${kindOf(stat)}) (fix: pass the cassette file a recording run wrote)`);
  if (stat.size > MAX_CASSETTE_BYTES)
    throw new CassetteError(
      `${file}: ${stat.size} bytes, larger than the ${MAX_CASSETTE_BYTES}-byte cap for a cassette (fix: record the attempt again with --record)`,
    );
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'device';
  if (stat.isDirectory()) return 'directory';
  if (stat.isSocket()) return 'socket';
  return 'special file';
}

function unreadable(file: string, error: unknown): CassetteError {
  return error instanceof CassetteError ? error : new CassetteError(`${file}: cannot read cassette (${(error as Error).message})`);
}

/** The cassette's bytes, at most the cap (a file that grows while read is cut there and then refused as torn). */
function readCassetteSync(file: string): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(file, OPEN_FLAGS);
    const stat = fstatSync(fd);
    checkCassetteStat(file, stat);
    const bytes = Buffer.alloc(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return bytes.subarray(0, at);
  } catch (error) {
    throw unreadable(file, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function readCassetteAsync(file: string): Promise<Buffer> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, OPEN_FLAGS);
    const stat = await handle.stat();
    checkCassetteStat(file, stat);
    const bytes = Buffer.alloc(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const { bytesRead } = await handle.read(bytes, at, bytes.length - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return bytes.subarray(0, at);
  } catch (error) {
    throw unreadable(file, error);
  } finally {
    await handle?.close();
  }
}

/** The recording in `file`; a file that is not a regular one, too large or malformed anywhere is a CassetteError naming it. */
export function readCassette(file: string, key?: CassetteKey): Cassette {
  return parseCassette(readCassetteSync(file), file, key);
}

/**
 * readCassette without blocking the event loop: what a run checks every recording with before any
 * setup. With `key`, the header must name that session (a recording renamed from another task's
 * is refused, not replayed).
 */
export async function loadCassette(file: string, key?: CassetteKey): Promise<Cassette> {
  return parseCassette(await readCassetteAsync(file), file, key);
}

function parseCassette(bytes: Buffer, file: string, key: CassetteKey | undefined): Cassette {
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) throw new CassetteError(`${file}: not UTF-8 text (fix: record the cassette again with --record)`);
  // A recording always ends its last line; one that does not was cut short while written.
  if (text.length > 0 && !text.endsWith('\n'))
    throw new CassetteError(`${file}: the last line is torn (no newline at its end) (fix: record the cassette again with --record)`);
  const lines = text.split('\n');
  let header: CassetteHeader | undefined;
  const exchanges: CassetteExchange[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new CassetteError(`${where}: not JSON (a torn or edited line) (fix: record the cassette again with --record)`);
    }
    if (header === undefined && !isCassetteHeader(value))
      throw new CassetteError(`${where}: the first line is not a cassette header (fix: record the cassette again with --record)`);
    if (header === undefined && (value as { version?: unknown }).version !== CASSETTE_VERSION)
      throw new CassetteError(
        `${where}: cassette version ${JSON.stringify((value as { version?: unknown }).version)}, this Crucible reads version ${CASSETTE_VERSION} (fix: record the cassette again with --record)`,
      );
    const schema = header === undefined ? headerSchema : exchangeSchema;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      // Blank lines before it, so the line the message names is the line in the cassette.
      const error = schemaError(file, `${'\n'.repeat(index)}${line}`, schema, parsed.error.issues, CASSETTE_FILE);
      throw new CassetteError(error.message);
    }
    if (header === undefined) header = parsed.data as CassetteHeader;
    else exchanges.push(parsed.data as CassetteExchange);
  });
  if (!header) throw new CassetteError(`${file}: empty cassette, no header line (fix: record the cassette again with --record)`);
  if (key !== undefined && header.key !== cassetteKeyText(key))
    throw new CassetteError(
      `${file}: the header's key is ${JSON.stringify(header.key)}, a recording of another attempt than ${JSON.stringify(cassetteKeyText(key))} (fix: record this attempt with --record, not a copy of another's)`,
    );
  exchanges.sort((a, b) => a.seq - b.seq);
  return { header, exchanges };
}

function isCassetteHeader(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'cassette';
}

/** Bytes of a recorded response, in the chunks the client will be sent. */
export function recordedChunks(response: RecordedResponse): Buffer[] {
  if (response.events) return response.events.map((event) => Buffer.from(event, 'utf8'));
  if (response.body === undefined) return [];
  return [Buffer.from(response.body, response.bodyEncoding === 'base64' ? 'base64' : 'utf8')];
}

/** Stores bytes as text when they round-trip as UTF-8, which JSON bodies always do. */
export function encodeBody(bytes: Buffer): Pick<RecordedResponse, 'body' | 'bodyEncoding'> {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? { body: text } : { body: bytes.toString('base64'), bodyEncoding: 'base64' };
}
