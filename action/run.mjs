#!/usr/bin/env node
// The GitHub Action's step: turns the action's inputs (INPUT_* variables) into one `crucible ci` or
// `crucible gate` command, runs it with --json, and hands its result to GitHub: step outputs in
// $GITHUB_OUTPUT, the Markdown report in $GITHUB_STEP_SUMMARY, and the exit code. Plain Node ESM
// with no dependencies, so it runs before (and independently of) Crucible's own install.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Exit code for inputs the action cannot use, the same as the CLI's. */
const BAD_INPUT = 2;

export class ActionInputError extends Error {}

/**
 * GitHub names a JavaScript action's inputs `INPUT_<NAME>` with the name upper-cased and dashes
 * kept; a composite action has to pass them itself, and action.yml uses underscores. Accept both.
 */
export function input(env, name) {
  const upper = name.toUpperCase();
  const value = env[`INPUT_${upper}`] ?? env[`INPUT_${upper.replaceAll('-', '_')}`] ?? '';
  return value.trim();
}

function booleanInput(env, name) {
  const value = input(env, name).toLowerCase();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new ActionInputError(`input ${name}: expected true or false, got '${value}'`);
}

/** `agents: oracle, nop` or one per line. */
function listInput(env, name) {
  return input(env, name)
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Splits extra-args like a shell would for words and quotes, without running a shell. */
export function splitArgs(text) {
  const args = [];
  let current = '';
  let quote = null;
  let started = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (quote) throw new ActionInputError(`input extra-args: unclosed ${quote} quote`);
  if (started) args.push(current);
  return args;
}

function gitResolves(ref, cwd) {
  return spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, stdio: 'ignore' }).status === 0;
}

/**
 * On a pull_request event GITHUB_BASE_REF names the target branch; actions/checkout fetches it as
 * origin/<branch> (with fetch-depth 0), a local clone may only have <branch>.
 */
function defaultBase(env, cwd) {
  const baseRef = (env.GITHUB_BASE_REF ?? '').trim();
  if (baseRef === '') return undefined;
  for (const ref of [`origin/${baseRef}`, baseRef]) if (gitResolves(ref, cwd)) return ref;
  throw new ActionInputError(
    `GITHUB_BASE_REF is ${baseRef} but neither origin/${baseRef} nor ${baseRef} is in the checkout (fix: actions/checkout with fetch-depth: 0, or set the base input)`,
  );
}

/** The command line after `crucible`, from the inputs. Never includes --allow-failure: see main. */
export function buildArgs(env, cwd) {
  const mode = input(env, 'mode') || 'ci';
  const args = [];
  if (mode === 'ci') {
    const base = input(env, 'base') || defaultBase(env, cwd);
    const head = input(env, 'head') || (base === undefined ? undefined : 'HEAD');
    args.push('ci');
    if (base !== undefined) args.push('--base', base);
    if (head !== undefined) args.push('--head', head);
    const config = input(env, 'config');
    if (config) args.push('--config', config);
  } else if (mode === 'gate') {
    const taskSet = input(env, 'task-set');
    const baseline = input(env, 'baseline');
    if (!taskSet) throw new ActionInputError('input task-set: required when mode is gate (a task set or suite file)');
    if (!baseline) throw new ActionInputError('input baseline: required when mode is gate (a file written by `crucible baseline save`)');
    args.push('gate', taskSet, '--baseline', baseline);
    for (const agent of listInput(env, 'agents')) args.push('--agent', agent);
    const runs = input(env, 'runs');
    if (runs) {
      if (!/^[1-9]\d*$/.test(runs)) throw new ActionInputError(`input runs: expected a whole number of trials, got '${runs}'`);
      args.push('--runs', runs);
    }
  } else {
    throw new ActionInputError(`input mode: expected ci or gate, got '${mode}'`);
  }
  args.push(...splitArgs(input(env, 'extra-args')), '--json');
  return args;
}

/** CRUCIBLE_BIN picks the CLI (a .js file runs under this Node); otherwise `crucible` on PATH. */
function command(env, args) {
  const bin = (env.CRUCIBLE_BIN ?? '').trim();
  if (bin === '') return { file: 'crucible', argv: args };
  if (/\.(c|m)?js$/.test(bin)) return { file: process.execPath, argv: [bin, ...args] };
  return { file: bin, argv: args };
}

/** --json prints one object; tolerate lines before it (a warning printed to stdout). */
export function parseResult(stdout) {
  const text = stdout.trim();
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) {
    try {
      const value = JSON.parse(text.slice(at));
      if (value !== null && typeof value === 'object') return value;
    } catch {
      // Not JSON from here; try the next opening brace.
    }
  }
  return undefined;
}

/** ci reports one rate; a gate one per agent: a single agent's is the number, several are listed. */
export function passRateOf(result) {
  const rate = result?.passRate;
  if (typeof rate === 'number') return String(rate);
  if (rate !== null && typeof rate === 'object') {
    const entries = Object.entries(rate).filter(([, value]) => typeof value === 'number');
    if (entries.length === 1) return String(entries[0][1]);
    return entries.map(([agent, value]) => `${agent}=${value}`).join(',');
  }
  return '';
}

function writeOutputs(env, outputs) {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `crucible_${randomBytes(8).toString('hex')}`;
    text += value.includes('\n') ? `${name}<<${delimiter}\n${value}\n${delimiter}\n` : `${name}=${value}\n`;
  }
  appendFileSync(file, text);
}

function sizeOf(file) {
  return existsSync(file) ? statSync(file).size : 0;
}

/**
 * The CLI appends its Markdown itself; if it did not (older CLI, crash), append the report file.
 * `sizeBefore` undefined: nothing ran, always write.
 */
function ensureSummary(env, sizeBefore, result, cwd, failure) {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file || (sizeBefore !== undefined && sizeOf(file) > sizeBefore)) return;
  const dir = typeof result?.reportDir === 'string' ? resolve(cwd, result.reportDir) : undefined;
  const report = dir && ['report.md', 'gate.md'].map((name) => join(dir, name)).find((path) => existsSync(path));
  if (report) appendFileSync(file, `${readFileSync(report, 'utf8').trimEnd()}\n`);
  else appendFileSync(file, `### Crucible\n\n${failure ?? `Verdict: **${result?.verdict ?? 'unknown'}**`}\n`);
}

function lastLine(text) {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

export function main(env = process.env) {
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const workDir = input(env, 'working-directory');
  const cwd = workDir ? (isAbsolute(workDir) ? workDir : resolve(workspace, workDir)) : workspace;
  let allowFailure;
  let args;
  try {
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new ActionInputError(`input working-directory: ${cwd} is not a directory`);
    allowFailure = booleanInput(env, 'allow-failure');
    args = buildArgs(env, cwd);
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error;
    process.stderr.write(`crucible action: ${error.message}\n`);
    writeOutputs(env, { verdict: '', 'pass-rate': '', 'report-path': '', 'exit-code': String(BAD_INPUT) });
    ensureSummary(env, undefined, undefined, cwd, `Invalid action input: ${error.message}`);
    return BAD_INPUT;
  }

  const { file, argv } = command(env, args);
  process.stderr.write(`crucible action: crucible ${args.join(' ')}\n`);
  const summaryBefore = env.GITHUB_STEP_SUMMARY ? sizeOf(env.GITHUB_STEP_SUMMARY) : 0;
  // allow-failure is applied here, not passed on, so the exit-code output still says what happened.
  const child = spawnSync(file, argv, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  if (child.stderr) process.stderr.write(child.stderr);
  const code = child.error ? BAD_INPUT : (child.status ?? 1);
  const result = parseResult(child.stdout ?? '');
  const failure = child.error
    ? `Crucible could not be started: ${child.error.message}`
    : result === undefined
      ? `Crucible exited with ${code} without a result: ${lastLine(child.stderr ?? '') || 'no output'}`
      : undefined;
  if (failure) process.stderr.write(`crucible action: ${failure}\n`);

  const reportPath = typeof result?.reportDir === 'string' ? resolve(cwd, result.reportDir) : '';
  writeOutputs(env, {
    verdict: typeof result?.verdict === 'string' ? result.verdict : '',
    'pass-rate': passRateOf(result),
    'report-path': reportPath,
    'exit-code': String(code),
  });
  ensureSummary(env, summaryBefore, result, cwd, failure);
  if (code === 1 && allowFailure) {
    process.stderr.write('crucible action: verdict FAIL, reported only (allow-failure: true)\n');
    return 0;
  }
  return code;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
