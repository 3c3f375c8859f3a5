import pc from 'picocolors';
import { runCi, type CiResult } from '../../features/ci/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import type { CliIo } from '../io.js';
import { openSession } from '../../engine/index.js';
import { EXIT, exitWith, type ExitCode } from '../exit.js';

export interface CiCommandOptions {
  repo?: string;
  base?: string;
  head?: string;
  config?: string;
  testCommand?: string;
  junit?: string;
  failToPass?: string[];
  commands?: string;
  baselineTests: boolean;
  sandbox?: SandboxKind;
  allowFailure?: boolean;
  out: string;
  json?: boolean;
  quiet?: boolean;
}

/** Exit 0 PASS (or FAIL with --allow-failure), 1 FAIL, 2 bad input, 3 ERROR (no verdict on the change), 130 interrupted (nothing written or recorded). */
export async function ciCommand(opts: CiCommandOptions, io: CliIo): Promise<void> {
  const warn = (m: string): void => void io.stderr.write(`${pc.yellow('warning')} ${m}\n`);
  // One evaluation, no attempts to let finish: the first Ctrl-C kills the running command.
  const session = openSession(io.signals);
  let result: CiResult;
  try {
    result = await evaluate(opts, warn, session.stop);
  } catch (error) {
    if (!session.interrupted) throw error;
    io.stderr.write(`${pc.yellow('interrupted')}: nothing was written or recorded\n`);
    exitWith(EXIT.interrupted);
    return;
  } finally {
    session.close();
  }
  if (opts.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (!opts.quiet || !opts.json) (opts.json ? io.stderr : io.stdout).write(summary(result));
  exitWith(ciExitCode(result.verdict, opts.allowFailure === true));
}

function evaluate(opts: CiCommandOptions, warn: (m: string) => void, signal: AbortSignal): Promise<CiResult> {
  return runCi({
    ...(opts.repo !== undefined ? { repo: opts.repo } : {}),
    ...(opts.base !== undefined ? { base: opts.base } : {}),
    ...(opts.head !== undefined ? { head: opts.head } : {}),
    ...(opts.config !== undefined ? { config: opts.config } : {}),
    ...(opts.testCommand !== undefined ? { testCommand: opts.testCommand } : {}),
    ...(opts.junit !== undefined ? { junit: opts.junit } : {}),
    ...(opts.failToPass !== undefined ? { failToPass: opts.failToPass } : {}),
    ...(opts.commands !== undefined ? { commands: opts.commands } : {}),
    ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
    baselineTests: opts.baselineTests,
    out: opts.out,
    warn,
    signal,
  });
}

/** ERROR is never a FAIL: `--allow-failure` lets a FAIL through, never a run that judged nothing. */
export function ciExitCode(verdict: CiResult['verdict'], allowFailure: boolean): ExitCode {
  if (verdict === 'ERROR') return EXIT.error;
  return verdict === 'FAIL' && !allowFailure ? EXIT.failed : EXIT.ok;
}

function summary(r: CiResult): string {
  const verdict = r.verdict === 'PASS' ? pc.green('PASS') : r.verdict === 'ERROR' ? pc.yellow('ERROR') : pc.red('FAIL');
  const failed = r.checks.filter((c) => !c.passed && (c.severity === 'error' || c.severity === 'critical'));
  const head = 'workingTree' in r.head ? 'working tree' : r.head.ref;
  return [
    `${verdict} ${r.cause}: ${r.message}`,
    `  ${head} against ${r.base.ref}: ${r.diff.filesChanged} file(s) changed, +${r.diff.added} -${r.diff.deleted}`,
    ...failed.map((c) => `  ${pc.red('✗')} ${c.id} (${c.severity}): ${c.message}`),
    `report: ${r.reportDir}`,
    '',
  ].join('\n');
}
