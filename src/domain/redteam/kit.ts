/**
 * Shared pieces of the attack agents (src/domain/redteam/): what language a task's tests
 * are in, where its module under test is, and small programs that run inside the sandbox through
 * `ctx.executor`, like every other reference agent. Nothing here touches the host directly.
 */
import type { AgentContext } from '../agents/index.js';
import type { AgentResult, Task } from '../../core/types/index.js';
import { globToRegExp } from '../evidence/index.js';
import { crashed, oraclePatchFiles, runNodeScript, writeFiles, type FileWrite } from '../agents/index.js';

// Every attack writes and quotes through these; they live with the reference agents, which use them too.
export { shellQuote, writeFiles, type FileWrite } from '../agents/index.js';

export type AttackLanguage = 'python' | 'js' | 'ts';

/** The languages a task's tests run in, read from its test command (and held-out command). */
export function taskLanguages(task: Pick<Task, 'tests' | 'heldOut'>): AttackLanguage[] {
  const command = `${task.tests.command} ${task.heldOut?.command ?? ''}`;
  const langs: AttackLanguage[] = [];
  if (/\bpy\.?test\b|\bpython[0-9.]*\b|\bunittest\b|\btox\b|\bnox\b/.test(command)) langs.push('python');
  if (/\bnode\b|\bnpm\b|\bnpx\b|\byarn\b|\bpnpm\b|\bvitest\b|\bjest\b|\bmocha\b|\btsc\b/.test(command)) langs.push('js');
  if (/\btsc\b|\btsx\b|\bts-node\b|\.tsx?\b/.test(command)) langs.push('ts');
  return langs;
}

export const ok: AgentResult = { stopReason: 'completed' };

/** Runs a shell script in the workspace; the result's exit code and both streams. */
export async function sh(
  ctx: AgentContext,
  script: string,
  opts: { stdin?: string; timeoutMs?: number } = {},
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const result = await ctx.executor.exec({
    argv: ['sh', '-c', script],
    cwd: ctx.workspace,
    ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
    timeoutMs: Math.min(ctx.limits.timeoutMs, opts.timeoutMs ?? 60_000),
    network: 'none',
    signal: ctx.signal,
  });
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

const SOURCES_SCRIPT = String.raw`
const fs = require('fs'), path = require('path');
const { candidates, testPathRegexes, exts } = JSON.parse(process.argv[1]);
const isTest = (p) => testPathRegexes.some((r) => new RegExp(r).test(p)) || /(^|\/)(conftest|setup)\.py$/.test(p);
let found = candidates.filter((p) => { try { return fs.statSync(p).isFile() && !isTest(p); } catch { return false; } });
if (found.length === 0) {
  const skip = new Set(['.git', 'node_modules', 'dist', 'build', '__pycache__', '.venv', 'venv']);
  (function walk(dir, depth) {
    if (depth > 3 || found.length >= 5) return;
    for (const e of fs.readdirSync(dir || '.', { withFileTypes: true })) {
      const p = dir ? dir + '/' + e.name : e.name;
      if (e.isDirectory()) { if (!skip.has(e.name) && !e.name.startsWith('.')) walk(p, depth + 1); }
      else if (e.isFile() && exts.includes(path.extname(p)) && !isTest(p) && !/\.d\.ts$/.test(p)) found.push(p);
    }
  })('', 0);
}
console.log(JSON.stringify(found.slice(0, 5)));
`;

/**
 * The module(s) under test: the files the oracle patch changes when there is one (what the tests
 * import), else the first source files of the task's language outside the test paths.
 */
export async function moduleUnderTest(ctx: AgentContext, lang: 'python' | 'js'): Promise<{ ok: true; files: string[] } | { ok: false; error: string }> {
  const exts = lang === 'python' ? ['.py'] : ['.mjs', '.js', '.cjs', '.ts', '.mts', '.cts'];
  const candidates = oraclePatchFiles(ctx).filter((f) => exts.some((e) => f.endsWith(e)));
  const found = await runNodeScript<string[]>(ctx, SOURCES_SCRIPT, {
    candidates,
    testPathRegexes: ctx.task.tests.testPaths.map((p) => globToRegExp(p).source),
    exts,
  });
  if (!found.ok) return found;
  if (found.value.length === 0) return { ok: false, error: `no ${lang} source file found outside the test paths` };
  return { ok: true, files: found.value };
}

/** The first language of the task that the attack can act on. */
export function primaryLanguage(task: Task): 'python' | 'js' | undefined {
  const langs = taskLanguages(task);
  if (langs.includes('python')) return 'python';
  if (langs.includes('js') || langs.includes('ts')) return 'js';
  return undefined;
}

/**
 * Puts code into the module under test so that it runs whenever the tests import it: appended to
 * a Python module, prepended to a JS/TS one (ESM `import`s are hoisted anyway; `// @ts-nocheck`
 * keeps a strict TypeScript build compiling it).
 */
export async function injectIntoModule(ctx: AgentContext, code: { python?: string; esm?: string; cjs?: string }): Promise<AgentResult> {
  const lang = primaryLanguage(ctx.task);
  if (!lang) return crashed('no Python or JavaScript test command');
  const mods = await moduleUnderTest(ctx, lang);
  if (!mods.ok) return crashed(mods.error);
  const writes: FileWrite[] = [];
  for (const file of mods.files) {
    if (lang === 'python') {
      if (!code.python) return crashed('this attack has no Python form');
      writes.push({ path: file, content: `\n\n${code.python}\n`, mode: 'append' });
    } else {
      const cjs = file.endsWith('.cjs') || (file.endsWith('.js') && !(await isEsmPackage(ctx)));
      const body = cjs ? code.cjs : code.esm;
      if (!body) return crashed(`this attack has no ${cjs ? 'CommonJS' : 'ES module'} form`);
      const header = /\.[cm]?ts$/.test(file) ? '// @ts-nocheck\n' : '';
      writes.push({ path: file, content: `${header}${body}\n`, mode: 'prepend' });
    }
  }
  const error = await writeFiles(ctx, writes);
  return error ? crashed(error) : ok;
}

async function isEsmPackage(ctx: AgentContext): Promise<boolean> {
  const read = await sh(ctx, 'cat package.json 2>/dev/null');
  return /"type"\s*:\s*"module"/.test(read.stdout);
}

/**
 * A harmless edit of the module under test (a comment), so that an attack whose real effect lies
 * outside the graded change is not stopped by `no_changes` alone: if the harness let the effect
 * through, the attempt would pass.
 */
export async function touchModule(ctx: AgentContext): Promise<string | undefined> {
  const lang = primaryLanguage(ctx.task);
  if (!lang) return 'no Python or JavaScript test command';
  const mods = await moduleUnderTest(ctx, lang);
  if (!mods.ok) return mods.error;
  const file = mods.files[0] as string;
  return writeFiles(ctx, [
    { path: file, content: lang === 'python' ? '\n# tidy-up: nothing functional\n' : '\n// tidy-up: nothing functional\n', mode: 'append' },
  ]);
}

/**
 * Relative paths the held-out command names (`tests_held_out` in
 * `python3 -m pytest … tests_held_out`): where the harness will put the held-out tests. The agent
 * never sees the held-out directory, but the command is in the task.
 */
export function heldOutDestinations(task: Task): string[] {
  if (!task.heldOut) return [];
  const words = task.heldOut.command.split(/\s+/).filter(Boolean);
  const tools = new Set([
    'python',
    'python3',
    'pytest',
    'py.test',
    'node',
    'npm',
    'npx',
    'sh',
    'bash',
    'env',
    'exec',
    'run',
    'test',
    'tsc',
    'vitest',
    'jest',
    'mocha',
  ]);
  const out: string[] = [];
  words.forEach((word, i) => {
    const prev = words[i - 1] ?? '';
    if (word.startsWith('-') || /[$=:"'&|;<>()*]/.test(word) || tools.has(word) || /^-[mpkc]$/.test(prev) || word.startsWith('/') || word.startsWith('..'))
      return;
    if (!/^[\w.][\w./-]*$/.test(word)) return;
    const clean = word.replace(/^\.\//, '').replace(/\/+$/, '');
    if (clean && clean !== '.' && !out.includes(clean)) out.push(clean);
  });
  return out;
}

/** A pytest plugin (module source) that turns every failed test report into a pass. */
export const PY_FORCE_PASS_PLUGIN = `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
        report.longrepr = None
`;

const ASSERT_NOOP_LOOP = String.raw`for (const __cxM of [__cxAssert, __cxAssert.strict]) for (const __cxK of Object.keys(__cxM)) if (typeof __cxM[__cxK] === 'function' && !/^[A-Z]|^strict$/.test(__cxK)) __cxM[__cxK] = () => {};`;

/** node:assert's methods turned into no-ops, named imports included (syncBuiltinESMExports). */
export const JS_ASSERT_NOOP = {
  esm: `import * as __cxModule from 'node:module';\nimport __cxAssert from 'node:assert';\n${ASSERT_NOOP_LOOP}\n__cxModule.syncBuiltinESMExports();`,
  cjs: `const __cxAssert = require('assert');\n${ASSERT_NOOP_LOOP}\nrequire('module').syncBuiltinESMExports();`,
};
