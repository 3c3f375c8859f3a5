/**
 * How an oracle script (`oracle.script`, Harbor's solution/solve.sh) is started. Harbor makes
 * solve.sh executable and executes it, so its `#!` line picks the interpreter: a `#!/bin/sh` script
 * runs on an image without bash. A script with a `#!` line is therefore written, executable, into
 * a directory the sandbox shows at the same path and executed directly, with no shell in between;
 * one without is shell text, run with bash as before (what bash itself does with such a file).
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What Harbor's oracle gives solve.sh: no interactive prompts from package managers. */
export const ORACLE_SCRIPT_ENV: Readonly<Record<string, string>> = { DEBIAN_FRONTEND: 'noninteractive' };

/**
 * The argv that runs `script`. `dir` is a directory of the attempt that the sandbox shows at the
 * same path and the repository never holds (the attempt's HOME); without one, bash runs the text.
 */
export async function oracleScriptArgv(script: string, dir: string | undefined): Promise<string[]> {
  if (!script.startsWith('#!') || dir === undefined) return ['bash', '-c', script, 'oracle-script'];
  const holder = join(dir, '.crucible-oracle');
  await mkdir(holder, { recursive: true });
  const path = join(holder, 'solve.sh');
  await writeFile(path, script);
  await chmod(path, 0o755);
  return [path];
}
