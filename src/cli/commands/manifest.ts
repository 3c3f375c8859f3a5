import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pc from 'picocolors';
import { findRunDir, runsDirOf } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { MANIFEST_FILE, verifyRunDir, type VerifyReport } from '../../domain/manifest/index.js';
import { withFlagNames } from '../option-flags.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';

export interface ManifestVerifyOptions {
  json?: boolean;
  out: string;
}

/**
 * `crucible manifest verify <run-id|run-dir>`: every hash the run's manifests record, recomputed
 * from the files as they are; nothing runs. Exit 0 when all match, 1 when anything differs, 2 for a
 * run that cannot be found.
 */
export async function manifestVerifyCommand(target: string, opts: ManifestVerifyOptions, io: CliIo): Promise<void> {
  const runDir = await resolveRunDir(target, opts.out);
  const report = await verifyRunDir(runDir);
  if (opts.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout.write(formatVerify(report));
  exitWith(report.ok ? EXIT.ok : EXIT.failed);
}

export function formatVerify(report: VerifyReport): string {
  if (report.ok) return `${pc.green('OK')} run ${report.runId}: ${report.checked} recorded entries in ${report.attempts} attempt(s) match their manifests\n`;
  const lines = report.problems.map((p) => `${p.file}: ${p.kind} (${p.detail})`);
  return `${lines.join('\n')}\n${pc.red('FAILED')} run ${report.runId}: ${report.problems.length} problem(s) against the manifests in ${report.runDir}\n`;
}

/**
 * A run directory given as a path (one holding plan.json or manifest.json), or a run id or unique
 * prefix looked up in the state directory as `resume` does, among runs and then validate runs.
 */
async function resolveRunDir(target: string, stateDir: string): Promise<string> {
  const asPath = resolve(target);
  if (isDir(asPath) && (existsSync(join(asPath, 'plan.json')) || existsSync(join(asPath, MANIFEST_FILE)))) return asPath;
  try {
    return (await withFlagNames(() => findRunDir(stateDir, target))).runDir;
  } catch (error) {
    const validate = join(runsDirOf(stateDir, 'validate'), target);
    if (isDir(validate) && existsSync(join(validate, 'plan.json'))) return validate;
    if (error instanceof InputError) throw error;
    throw new InputError(`run ${target}: not found (fix: give a run id from \`crucible history --runs\` or a run directory)`);
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
