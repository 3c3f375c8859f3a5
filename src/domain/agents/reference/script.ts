import type { AgentContext } from '../agent.js';
import type { AgentResult } from '../../../core/types/index.js';

/**
 * The scripted reference agents act like real ones: every change goes through `ctx.executor`,
 * inside the sandbox, as a small Node program (node is on every machine Crucible runs on). Each
 * program gets its parameters as one JSON argument and prints one JSON line back.
 */
export async function runNodeScript<T>(ctx: AgentContext, script: string, params: unknown): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  const result = await ctx.executor.exec({
    argv: ['node', '-e', script, JSON.stringify(params)],
    cwd: ctx.workspace,
    timeoutMs: Math.min(ctx.limits.timeoutMs, 60_000),
    network: 'none',
    signal: ctx.signal,
  });
  if (result.exitCode !== 0) return { ok: false, error: (result.stderr.trim().split('\n').pop() ?? '') || `exit ${result.exitCode}` };
  try {
    return { ok: true, value: JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null') as T };
  } catch {
    return { ok: false, error: `unreadable script output: ${result.stdout.slice(0, 200)}` };
  }
}

export async function runShell(ctx: AgentContext, command: string): Promise<{ exitCode: number | null; stderr: string }> {
  const result = await ctx.executor.exec({
    argv: ['sh', '-c', command],
    cwd: ctx.workspace,
    timeoutMs: Math.min(ctx.limits.timeoutMs, 60_000),
    network: 'none',
    signal: ctx.signal,
  });
  return { exitCode: result.exitCode, stderr: result.stderr };
}

export function crashed(error: string): AgentResult {
  return { stopReason: 'error', error };
}

/** Where a fail-to-pass test is defined, as the locate script found it. */
export interface TestLocation {
  id: string;
  file: string;
  /** 0-based line of the `def`, `it(` or `test(`. */
  line: number;
  lang: 'python' | 'js';
}

/**
 * Finds each fail-to-pass test's definition among the workspace's test files: the last segment of
 * its id (`tests.test_x::test_y` → `test_y`, `suite > name` → `name`) as a Python `def` or as the
 * quoted title of a JS/TS `it(`/`test(` call. Runs in the sandbox; prints TestLocation[].
 */
export const LOCATE_SCRIPT = String.raw`
const fs = require('fs'), path = require('path');
const { ids, testPathRegexes } = JSON.parse(process.argv[1]);
const isTest = (p) => testPathRegexes.some((r) => new RegExp(r).test(p));
const skip = new Set(['.git', 'node_modules', 'dist', 'build', '__pycache__', '.venv', 'venv']);
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir || '.', { withFileTypes: true })) {
    const p = dir ? dir + '/' + e.name : e.name;
    if (e.isDirectory()) { if (!skip.has(e.name)) walk(p); }
    else if (e.isFile() && isTest(p) && /\.(py|[cm]?[jt]sx?)$/.test(p)) files.push(p);
  }
})('');
const esc = (s) => s.replace(/[.*+?^$\{}()|[\]\\]/g, '\\$&');
const found = [];
for (const id of ids) {
  const name = id.split('::').pop().split(' > ').pop().replace(/\[.*$/, '');
  const py = new RegExp('^\\s*(?:async\\s+)?def\\s+' + esc(name) + '\\s*\\(');
  const js = new RegExp('\\b(?:it|test)\\s*\\(\\s*([\'"\x60])' + esc(name) + '\\1');
  for (const file of files) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const lang = file.endsWith('.py') ? 'python' : 'js';
    const line = lines.findIndex((l) => (lang === 'python' ? py : js).test(l));
    if (line !== -1) { found.push({ id, file, line, lang }); break; }
  }
}
console.log(JSON.stringify(found));
`;

export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const WRITE_SCRIPT = String.raw`
const fs = require('fs'), path = require('path');
const { files } = JSON.parse(process.argv[1]);
const written = [], failed = [];
for (const f of files) {
  try {
    fs.mkdirSync(path.dirname(f.path), { recursive: true });
    if (f.mode === 'append') fs.appendFileSync(f.path, f.content);
    else if (f.mode === 'prepend') fs.writeFileSync(f.path, f.content + fs.readFileSync(f.path, 'utf8'));
    else fs.writeFileSync(f.path, f.content);
    written.push(f.path);
  } catch (e) { failed.push(f.path + ': ' + (e.code || e.message)); }
}
console.log(JSON.stringify({ written, failed }));
`;

export interface FileWrite {
  path: string;
  content: string;
  mode?: 'write' | 'append' | 'prepend';
}

/** Writes files in the workspace (through the executor); undefined when all were written, else why not. */
export async function writeFiles(ctx: AgentContext, files: FileWrite[]): Promise<string | undefined> {
  const out = await runNodeScript<{ written: string[]; failed: string[] }>(ctx, WRITE_SCRIPT, { files });
  if (!out.ok) return out.error;
  return out.value.failed.length > 0 ? `could not write ${out.value.failed.join(', ')}` : undefined;
}
