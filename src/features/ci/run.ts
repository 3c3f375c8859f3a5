/**
 * `crucible ci` end to end: resolve the checkout, refs and settings (every input problem before any
 * work, as an InputError), evaluate, write the reports, record them in the history, append the
 * step summary. The CLI only parses flags and prints.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { setupOutputText, SETUP_OUTPUT_FILE, type CommandEvent } from '../../domain/evidence/index.js';
import { InputError } from '../../core/errors.js';
import { resolveSandbox, type ExecutorFactory, type SandboxKind } from '../../infra/sandbox/index.js';
import { openCheckout, readAtCommit, resolveCommit, type Checkout } from './checkout.js';
import { readCommandLog } from './command-log.js';
import { CI_CONFIG_FILE, resolveCiSettings, type CiFlags, type CiSettings } from './config.js';
import { evaluateCheckout } from './evaluate.js';
import { recordCiResult } from './history.js';
import { appendStepSummary, renderCiMarkdown, writeCiReports } from './report.js';
import { ciResult, type CiResult } from './result.js';
import { SetupCommandError } from '../../engine/index.js';

export interface CiOptions extends CiFlags {
  /** The checkout; default the current directory. */
  repo?: string;
  /** Default HEAD. */
  base?: string;
  /** Default: the working tree. */
  head?: string;
  config?: string;
  commands?: string;
  /** Default true. */
  baselineTests?: boolean;
  sandbox?: SandboxKind;
  /** Makes setup's and the test runs' executors; default createExecutor. */
  executorFactory?: ExecutorFactory;
  /** Crucible's state directory; reports go to `<out>/ci/<id>/`. */
  out: string;
  warn?: (message: string) => void;
  env?: NodeJS.ProcessEnv;
  /**
   * Aborted when the user interrupts: the running command (setup, a test run) is killed, and the
   * evaluation ends with this signal's reason thrown, writing and recording nothing.
   */
  signal?: AbortSignal;
}

export async function runCi(options: CiOptions): Promise<CiResult> {
  const warn = options.warn ?? ((m: string) => process.stderr.write(`warning ${m}\n`));
  const checkout = await openCheckout(options.repo ?? '.');
  const baseRef = options.base ?? 'HEAD';
  const base = { ref: baseRef, commit: await resolveCommit(checkout, baseRef, '--base') };
  const head = options.head === undefined ? undefined : { ref: options.head, commit: await resolveCommit(checkout, options.head, '--head') };
  const settings = await loadSettings(checkout, base.commit, head?.commit, options);
  const commands: CommandEvent[] = options.commands === undefined ? [] : readCommandLog(options.commands);
  // The checkout's own tests, run on the machine the job already runs them on: they may fall back.
  const chosen = await resolveSandbox(options.sandbox, { allowFallback: true, unsandboxed: 'the tests run' });
  if (chosen.warning) warn(chosen.warning);
  const sandbox = chosen.kind;

  const stateDir = resolve(options.out);
  const createdAt = new Date();
  const id = ciId(createdAt);
  const reportDir = join(stateDir, 'ci', id);
  await mkdir(reportDir, { recursive: true });
  let evaluation;
  try {
    evaluation = await evaluateCheckout({
      checkout,
      base,
      ...(head ? { head } : {}),
      settings,
      sandbox,
      ...(options.executorFactory ? { executorFactory: options.executorFactory } : {}),
      stateDir,
      reportDir,
      commands,
      baselineTests: options.baselineTests ?? true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    // A killed command's result is no evidence about the change: an interrupted evaluation has no verdict.
    options.signal?.throwIfAborted();
  } catch (error) {
    if (options.signal?.aborted) {
      await rm(reportDir, { recursive: true, force: true });
      throw error;
    }
    if (error instanceof SetupCommandError) {
      // The one line names the reason; the output that shows it goes beside the reports.
      const file = join(reportDir, SETUP_OUTPUT_FILE);
      await writeFile(file, setupOutputText(error.failure));
      throw new InputError(
        `${settings.source}: ${error.message} (fix: correct setup: or run it locally first; its output: ${relative(process.cwd(), file) || file})`,
      );
    }
    throw error;
  }
  const result = ciResult(
    {
      id,
      createdAt: createdAt.toISOString(),
      reportDir,
      repo: checkout.root,
      base,
      head: head ?? { workingTree: true },
      config: settings.source,
      sandbox,
    },
    evaluation,
  );
  await writeCiReports(result);
  recordCiResult(stateDir, result, warn);
  // The verdict stands whether or not GitHub's summary file takes the report.
  await appendStepSummary(renderCiMarkdown(result), options.env ?? process.env).catch((error: unknown) =>
    warn(`could not append to $GITHUB_STEP_SUMMARY (${error instanceof Error ? error.message : String(error)})`),
  );
  return result;
}

/**
 * `--config FILE` is read from disk. Otherwise crucible.ci.yaml is read as committed at base, so a
 * change cannot loosen the gate it is judged by; a base without one (the change adds it) takes
 * head's. Flags override either.
 */
async function loadSettings(checkout: Checkout, base: string, head: string | undefined, options: CiOptions): Promise<CiSettings> {
  if (options.config !== undefined) {
    const file = options.config;
    if (!existsSync(file) || statSync(file).isDirectory())
      throw new InputError(`${file}: no such config file (fix: check the path, or leave --config out to use ${CI_CONFIG_FILE})`);
    return resolveCiSettings({ name: file, text: readFileSync(file, 'utf8') }, options);
  }
  const atBase = await readAtCommit(checkout, base, CI_CONFIG_FILE);
  if (atBase !== undefined) return resolveCiSettings({ name: `${CI_CONFIG_FILE}@${base.slice(0, 10)}`, text: atBase }, options);
  const onDisk = join(checkout.root, CI_CONFIG_FILE);
  const atHead = head !== undefined ? await readAtCommit(checkout, head, CI_CONFIG_FILE) : existsSync(onDisk) ? readFileSync(onDisk, 'utf8') : undefined;
  const name = head !== undefined ? `${CI_CONFIG_FILE}@${head.slice(0, 10)}` : relative(process.cwd(), onDisk) || CI_CONFIG_FILE;
  return resolveCiSettings(atHead === undefined ? undefined : { name, text: atHead }, options);
}

function ciId(at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `ci-${stamp}-${randomBytes(3).toString('hex')}`;
}
