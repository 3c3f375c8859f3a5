import { constants } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor } from '../sandbox/executor.js';
import type { TestRunEvidence } from '../types/index.js';
import { buildTestEvidence } from './test-outcome.js';

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

/** JUnit reports bigger than this are not evidence but an attack on the parser. */
const MAX_JUNIT_BYTES = 64 * 1024 * 1024;

/**
 * Runs a test command in the sandbox, without network, and turns its JUnit report into evidence.
 * A report the agent left in the workspace beforehand is deleted first, so only this run counts.
 */
export async function runTests(req: TestRunRequest): Promise<{ evidence: TestRunEvidence; junitXml?: string }> {
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
  const junitXml = await readBounded(reportPath);
  const evidence = buildTestEvidence({
    command: req.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    output: `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`,
    junitXml,
    spec: { failToPass: req.failToPass, passToPass: req.passToPass },
  });
  return { evidence, junitXml };
}

async function readBounded(path: string): Promise<string | undefined> {
  let handle;
  try {
    // Never follow a symlink the agent may have planted where the report goes.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_JUNIT_BYTES) return undefined;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
