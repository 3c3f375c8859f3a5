import { constants } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor } from '../sandbox/executor.js';
import type { TestCaseResult, TestRunEvidence } from '../types/index.js';
import { MAX_JUNIT_CHARS } from './junit.js';
import { evaluateTestRun } from './test-outcome.js';

export interface TestRunRequest {
  executor: Executor;
  workspace: string;
  command: string;
  /** Workspace-relative JUnit path the command writes, or undefined to use `$CRUCIBLE_JUNIT`. */
  junit?: string;
  /** A directory outside the workspace, writable in the sandbox, where `$CRUCIBLE_JUNIT` points. */
  resultsDir: string;
  /** File name of the report inside resultsDir, e.g. `tests.junit.xml`. */
  reportName: string;
  failToPass: string[];
  passToPass: string[] | 'all_others';
  timeoutMs: number;
  signal?: AbortSignal;
}


/**
 * Runs a test command in the sandbox, without network, and turns its JUnit report into evidence.
 * A report the agent left in the workspace beforehand is deleted first, so only this run counts.
 */
export async function runTests(req: TestRunRequest): Promise<{ evidence: TestRunEvidence; junitXml?: string; cases?: TestCaseResult[] }> {
  const reportPath = req.junit ? join(req.workspace, req.junit) : join(req.resultsDir, req.reportName);
  await rm(reportPath, { force: true, recursive: true });

  const result = await req.executor.exec({
    argv: ['sh', '-c', req.command],
    cwd: req.workspace,
    env: { CRUCIBLE_JUNIT: join(req.resultsDir, req.reportName), CI: 'true' },
    timeoutMs: req.timeoutMs,
    maxOutputBytes: 1024 * 1024,
    network: 'none',
    signal: req.signal,
  });
  const report = await readReport(reportPath);
  const junitXml = typeof report === 'string' ? report : undefined;
  const { evidence, cases } = evaluateTestRun({
    command: req.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    output: `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`,
    junitXml,
    ...(typeof report === 'object' ? { reportProblem: report.problem } : {}),
    spec: { failToPass: req.failToPass, passToPass: req.passToPass },
  });
  return { evidence, junitXml, cases };
}

/** The report's text; undefined when there is none; a problem when it is there but not readable as one. */
async function readReport(path: string): Promise<string | { problem: string } | undefined> {
  let handle;
  try {
    // Never follow a symlink the agent may have planted where the report goes.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problem: 'the JUnit report path is not a regular file' };
    // Bytes bound characters from above, so this is the parser's own limit, checked before reading.
    if (stat.size > MAX_JUNIT_CHARS) return { problem: `JUnit report too large (${stat.size} bytes; limit ${MAX_JUNIT_CHARS})` };
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
