import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, OptionError } from '../../core/errors.js';
import { attemptsDir, runsDir } from './names.js';

/**
 * Finds a run directory by id or unique id prefix, the way `git` takes short hashes. Looks at the
 * run directories themselves, so a run can be resumed even when the history file is missing.
 */
export async function findRunDir(stateDir: string, prefix: string): Promise<{ runId: string; runDir: string }> {
  const dir = runsDir(stateDir);
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
  } catch {
    throw new OptionError([{ field: 'runId', value: prefix }], `no runs in ${dir}`, 'pass {stateDir} with the state directory the run used');
  }
  if (names.includes(prefix)) return { runId: prefix, runDir: join(dir, prefix) };
  const matches = names.filter((n) => n.startsWith(prefix)).sort();
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return { runId: only, runDir: join(dir, only) };
  if (matches.length === 0) {
    const recent = names.sort().slice(-3).reverse();
    throw new InputError(
      `run ${prefix}: no such run in ${dir} (fix: use a run id${recent.length > 0 ? `, e.g. ${recent.join(', ')}` : ''}; \`crucible history --runs\` lists them)`,
    );
  }
  throw new InputError(
    `run ${prefix}: matches ${matches.length} runs (${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}) (fix: give more of the id)`,
  );
}

/** Every name in a run's `attempts/` folder, sorted (hidden staging names included: callers judge them). */
export async function attemptDirNames(runDir: string): Promise<string[]> {
  return (await readdir(attemptsDir(runDir)).catch(() => [] as string[])).sort();
}

/** The attempt directories of a run, in name order (directories only: links are not followed). */
export async function listAttemptDirs(runDir: string): Promise<string[]> {
  const entries = await readdir(attemptsDir(runDir), { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((n) => join(attemptsDir(runDir), n));
}
