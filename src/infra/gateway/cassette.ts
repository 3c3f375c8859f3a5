import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

export function readCassette(file: string): { header: CassetteHeader; exchanges: CassetteExchange[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CassetteError(`${file}: cannot read cassette (${(error as Error).message})`);
  }
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
      throw new CassetteError(`${where}: not JSON`);
    }
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
  if (!header) throw new CassetteError(`${file}: empty cassette`);
  exchanges.sort((a, b) => a.seq - b.seq);
  return { header, exchanges };
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
