import { startFailure } from './start-failure.js';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor } from '../../infra/sandbox/index.js';
import type { TestCaseResult, TestFormat, TestReportSource, TestRunEvidence } from '../../core/types/index.js';
import { MAX_JUNIT_CHARS } from './junit.js';
import { prepareNodeSentinel } from './node-sentinel.js';
import { pythonSafePathEnv } from './python-safe-path.js';
import { startSentinel, type RunningSentinel } from './python-sentinel.js';
import { reportIsFile, reportLabel } from './report-format.js';
import { evaluateTestRun } from './test-outcome.js';
import { watchTrees, type ScanLimits } from './workspace-scan.js';

export interface TestRunRequest {
  executor: Executor;
  workspace: string;
  /**
   * Where on the host the run's own writes to the workspace land, when not the workspace itself
   * (an overlay's upper directory): the JUnit file at `junit` is read there, so a report counts
   * only if this run wrote it.
   */
  written?: string;
  command: string;
  /** Workspace-relative JUnit path the command writes, or undefined to use `$CRUCIBLE_JUNIT`. */
  junit?: string;
  /** The report's format; undefined means `junit`. */
  format?: TestFormat;
  /** Stream formats: read stdout (default) or the file `$CRUCIBLE_REPORT` names. */
  report?: TestReportSource;
  /**
   * A fresh directory outside the workspace, writable in the sandbox, where `$CRUCIBLE_JUNIT`
   * points. The report's name in it is random, so nothing can be put there in advance.
   */
  resultsDir: string;
  failToPass: string[];
  passToPass: string[] | 'all_others';
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Host directories the code under test can fill (the copy under test, its HOME), held to these
   * limits while the tests run: past one, the run is stopped and its evidence names the limit.
   */
  watch?: { trees: ReadonlyArray<{ root: string; label: string }>; limits: ScanLimits };
  /**
   * The Python sentinel: a fresh directory from makeSentinelDir that the executor shows read-only,
   * and the change's files. Without it Python runs get the import path alone, and no sentinel.
   */
  sentinel?: { dir: string; changeFiles: readonly string[]; roots?: readonly string[] };
}

/** stdout kept for a report read from it: a stream format's whole report, within the parser's limit. */
export const MAX_STDOUT_REPORT_BYTES = 16 * 1024 * 1024;

/**
 * Runs a test command in the sandbox, without network, and turns its report into evidence.
 * A report already at a workspace report path is deleted first, so only this run counts; the
 * path is reached without following a symlink anywhere on the way.
 *
 * JUnit is read from `$CRUCIBLE_JUNIT` (or `junit`). A stream format (TAP, go test -json, libtest
 * JSON, pytest's output) is read from stdout, or with `report: file` from `$CRUCIBLE_REPORT`, a
 * random path outside the workspace like `$CRUCIBLE_JUNIT`. `junitXml` comes back only for JUnit:
 * callers keep it as the attempt's JUnit file.
 */
export async function runTests(req: TestRunRequest): Promise<{ evidence: TestRunEvidence; junitXml?: string; cases?: TestCaseResult[] }> {
  const defaultReport = join(req.resultsDir, `${randomBytes(12).toString('hex')}.xml`);
  const streamReport = join(req.resultsDir, `${randomBytes(12).toString('hex')}.report`);
  const format = req.format ?? 'junit';
  const fromFile = reportIsFile(req);
  const written = req.written ?? req.workspace;
  if (req.junit && format === 'junit') {
    const stale = await insideWithoutLinks(written, req.junit);
    if (stale) await unlink(stale).catch(() => undefined);
  }

  const stop = new AbortController();
  const relay = (): void => stop.abort();
  if (req.signal?.aborted) stop.abort();
  else req.signal?.addEventListener('abort', relay, { once: true });
  // The runner, its dependencies and the standard library come before the code under test; the
  // sentinel before anything of the repository.
  const reports = [defaultReport, ...(format !== 'junit' && fromFile ? [streamReport] : []), ...(req.junit ? [join(req.workspace, req.junit)] : [])];
  const sentinel: RunningSentinel | undefined = req.sentinel
    ? await startSentinel(req.sentinel.dir, { roots: req.sentinel.roots ?? [req.workspace], changeFiles: req.sentinel.changeFiles, reports })
    : undefined;
  const python = sentinel ? sentinel.env : await pythonSafePathEnv(req.resultsDir);
  const node = await prepareNodeSentinel(req.resultsDir);
  const watch = req.watch ? watchTrees(req.watch.trees, req.watch.limits, relay) : undefined;
  const result = await req.executor
    .exec({
      argv: node.argv(req.command),
      cwd: req.workspace,
      env: { ...python, CRUCIBLE_JUNIT: defaultReport, ...(format !== 'junit' && fromFile ? { CRUCIBLE_REPORT: streamReport } : {}), CI: 'true' },
      timeoutMs: req.timeoutMs,
      maxOutputBytes: fromFile ? 1024 * 1024 : MAX_STDOUT_REPORT_BYTES,
      network: 'none',
      signal: stop.signal,
    })
    .catch(async (error: unknown) => {
      await sentinel?.collect(0);
      throw error;
    })
    .finally(() => {
      watch?.stop();
      req.signal?.removeEventListener('abort', relay);
    });
  const seen = await sentinel?.collect();
  const overflow = watch?.exceeded();
  const label = reportLabel(format);
  let report: string | { problem: string } | undefined;
  if (!fromFile) {
    report = result.truncated ? { problem: `stdout went over ${MAX_STDOUT_REPORT_BYTES} bytes: the ${label} on it was cut` } : result.stdout;
  } else if (format !== 'junit') {
    report = await readReport(streamReport, label);
  } else {
    const reportPath = req.junit ? await insideWithoutLinks(written, req.junit) : defaultReport;
    report =
      reportPath === undefined ? { problem: `the report path ${req.junit ?? ''} goes through a symlink or a file` } : await readReport(reportPath, label);
  }
  const text = typeof report === 'string' ? report : undefined;
  const junitXml = format === 'junit' ? text : undefined;
  const { evidence, cases } = evaluateTestRun({
    command: req.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    output: `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}${overflow ? `\n[crucible] stopped: ${overflow.message}` : ''}`,
    junitXml: text,
    format,
    ...(typeof report === 'object' ? { reportProblem: report.problem } : {}),
    notStarted: startFailure(result, typeof report === 'string' && report !== ''),
    spec: { failToPass: req.failToPass, passToPass: req.passToPass },
  });
  const limitExceeded = result.limitExceeded ?? overflow?.limit;
  const limited = {
    ...evidence,
    ...(limitExceeded ? { limitExceeded } : {}),
    ...(result.forgedReport !== undefined ? { forgedReport: result.forgedReport } : {}),
  };
  const runnerWrites = await node.writes(req.workspace);
  // A run that started no Python process (a Node task) carries no sentinel evidence.
  const heard = seen && (seen.processes > 0 || seen.garbled !== undefined) ? seen : undefined;
  return {
    evidence: { ...limited, ...(runnerWrites.length > 0 ? { runnerWrites } : {}), ...(heard ? { sentinel: heard } : {}) },
    junitXml,
    cases,
  };
}

/**
 * `root/rel` when every directory on the way is a real directory, not a symlink; undefined
 * otherwise. Nothing runs in `root` while the harness looks, so the answer stays true.
 */
export async function insideWithoutLinks(root: string, rel: string): Promise<string | undefined> {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return undefined;
  for (let i = 1; i < parts.length; i++) {
    const info = await lstat(join(root, ...parts.slice(0, i))).catch(() => undefined);
    if (info === undefined) return join(root, ...parts);
    if (!info.isDirectory()) return undefined;
  }
  return join(root, ...parts);
}

/** The report's text; undefined when there is none; a problem when it is there but not readable as one. */
async function readReport(path: string, label: string): Promise<string | { problem: string } | undefined> {
  let handle;
  try {
    // Never follow a symlink the agent may have planted where the report goes, and never wait on
    // a FIFO planted there: a blocking open() would wait for a writer that never comes.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problem: `the ${label} path is not a regular file` };
    // Bytes bound characters from above, so this is the parser's own limit, checked before reading.
    if (stat.size > MAX_JUNIT_CHARS) return { problem: `${label} too large (${stat.size} bytes; limit ${MAX_JUNIT_CHARS})` };
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
