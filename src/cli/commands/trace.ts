import { basename, relative } from 'node:path';
import pc from 'picocolors';
import { InputError } from '../../core/errors.js';
import {
  locateTrace,
  readTrace,
  replayAttemptDir,
  runMetamorphic,
  TRACE_FILE,
  TraceFileError,
  verifyAttemptTrace,
  type AttemptReplay,
  type AttemptVerification,
  type MetamorphicReport,
} from '../../domain/trace/index.js';
import { withFlagNames } from '../option-flags.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';

export interface TraceCommandOptions {
  out: string;
  json?: boolean;
}

const shown = (dir: string, cwd: string): string => relative(cwd, dir) || '.';

/** A missing or unreadable trace file is bad input (exit 2); a chain that fails is a finding (exit 1). */
async function asInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TraceFileError) throw new InputError(error.message);
    throw error;
  }
}

function missing(dir: string, error: unknown): AttemptVerification {
  if (!(error instanceof TraceFileError)) throw error;
  return { attemptId: basename(dir), attemptDir: dir, chain: { ok: false, line: 1, reason: error.message.replace(/^.*?: /, '') } };
}

/** `crucible trace verify`: every attempt's chain, header and count. Exit 1 names the first bad line. */
export async function traceVerifyCommand(target: string, opts: TraceCommandOptions, io: CliIo): Promise<void> {
  const located = await withFlagNames(() => locateTrace(target, opts.out, true));
  const results: AttemptVerification[] = [];
  for (const dir of located.attemptDirs) {
    // One attempt asked for: a missing trace is bad input. In a run, an attempt without one is a finding.
    if (located.kind === 'attempt') results.push(await asInput(() => verifyAttemptTrace(dir)));
    else results.push(await verifyAttemptTrace(dir).catch((error: unknown) => missing(dir, error)));
  }
  const bad = results.filter((r) => !r.chain.ok);
  if (opts.json) {
    const rows = results.map((r) => ({
      attemptId: r.attemptId,
      file: shown(`${r.attemptDir}/${TRACE_FILE}`, io.cwd),
      ok: r.chain.ok,
      ...(r.chain.ok ? { events: r.chain.header.events } : { line: r.chain.line, reason: r.chain.reason }),
    }));
    io.stdout.write(`${JSON.stringify({ ok: bad.length === 0, attempts: rows }, null, 2)}\n`);
  } else {
    for (const r of results) {
      const file = shown(`${r.attemptDir}/${TRACE_FILE}`, io.cwd);
      if (r.chain.ok) io.stdout.write(`${pc.green('ok')}   ${file}: ${r.chain.header.events} event(s), chain and header match\n`);
      else io.stdout.write(`${pc.red('FAIL')} ${file}:${r.chain.line}: ${r.chain.reason}\n`);
    }
  }
  exitWith(bad.length > 0 ? EXIT.failed : EXIT.ok);
}

/** `crucible trace replay`: re-grades each attempt from its trace alone and compares with what was recorded. */
export async function traceReplayCommand(target: string, opts: TraceCommandOptions, io: CliIo): Promise<void> {
  const located = await withFlagNames(() => locateTrace(target, opts.out, true));
  const replays: AttemptReplay[] = [];
  for (const dir of located.attemptDirs) replays.push(await replayAttemptDir(dir));
  const matched = replays.filter((r) => r.match).length;
  const checks = replays.flatMap((r) => r.checks);
  const rate = replays.length === 0 ? 0 : matched / replays.length;
  if (opts.json) {
    io.stdout.write(
      `${JSON.stringify({ attempts: replays.length, matched, matchRate: rate, checks: { total: checks.length, matched: checks.filter((c) => c.match).length }, replays }, null, 2)}\n`,
    );
  } else {
    for (const r of replays) {
      const verdict = r.replayed ? `${r.replayed.verdict} ${r.replayed.cause}` : '-';
      const status = r.match ? pc.green('match') : pc.red('MISMATCH');
      const what = r.note ?? `${r.checks.filter((c) => c.match).length}/${r.checks.length} checks`;
      io.stdout.write(`${status} ${r.attemptId}: ${verdict} (${what})${r.problem ? `: ${r.problem}` : ''}\n`);
    }
    io.stdout.write(`\nreplayed ${replays.length} attempt(s): ${matched} match (${(rate * 100).toFixed(1)}%); no agent, test, container or network was used\n`);
  }
  exitWith(matched === replays.length ? EXIT.ok : EXIT.failed);
}

/** `crucible trace metamorphic`: the catalogue of transformations over one attempt's trace. */
export async function traceMetamorphicCommand(target: string, opts: TraceCommandOptions, io: CliIo): Promise<void> {
  const located = await withFlagNames(() => locateTrace(target, opts.out, false));
  const [dir] = located.attemptDirs;
  if (dir === undefined) throw new InputError(`${target}: no attempt`);
  const report: MetamorphicReport = runMetamorphic(await asInput(() => readTrace(dir)));
  const disagree = report.results.filter((r) => r.agree === false);
  if (opts.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    if (report.problem) io.stdout.write(`${pc.red('FAIL')} ${report.attemptId}: ${report.problem}\n`);
    for (const r of report.results) {
      const status = r.skipped !== undefined ? pc.dim('skip') : r.agree ? pc.green('ok  ') : pc.red('FAIL');
      const seen = r.skipped !== undefined ? `n/a: ${r.skipped}` : `seen ${r.seen ?? '-'}; ${r.detail ?? ''}`;
      io.stdout.write(`${status} ${r.id.padEnd(24)} expected ${r.expected.padEnd(8)} ${seen}\n`);
    }
  }
  exitWith(report.problem !== undefined || disagree.length > 0 ? EXIT.failed : EXIT.ok);
}
