import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { builtinProfilesDir } from '../domain/agents/index.js';
import { InputError } from '../core/errors.js';

/**
 * The parts of examples/ the npm package ships (package.json `files` lists each as
 * `examples/<part>`): the task set, its repos, held-out tests and oracle patches, and the cassette
 * the quick start replays.
 */
export const QUICKSTART_EXAMPLES: readonly string[] = ['tasks.yaml', 'repos', 'held-out', 'oracles', 'cassettes/quickstart'];

/** The cassette directory the quick start replays, relative to examples/. */
export const QUICKSTART_CASSETTES = 'cassettes/quickstart';

/** The model the quick start's cassette was recorded for. */
export const QUICKSTART_MODEL = 'openai:gpt-4.1-mini';

/** examples/ beside profiles/ at the package root (a checkout or the installed package). */
export function bundledExamplesDir(): string {
  const dir = join(dirname(builtinProfilesDir()), 'examples');
  const file = join(dir, 'tasks.yaml');
  if (!existsSync(file)) throw new InputError(`${file}: the bundled examples are missing (fix: run from a Crucible checkout, or reinstall Crucible)`);
  return dir;
}
