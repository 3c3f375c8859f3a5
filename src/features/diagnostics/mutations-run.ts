/**
 * Runs each catalogue entry once through `crucible ci`'s evaluation: the real test guard, diff,
 * added-lines scan, test runner (in the sandbox, in a fresh copy) and checks. What comes back is the
 * CheckInput of each entry: checks are pure functions of it, so judging with a check removed
 * (--disable-check, ablation) needs no second execution.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CheckInput } from '../../domain/checks/index.js';
import { evaluateCheckout, resolveCiSettings, type CiSettings } from '../ci/index.js';
import { InputError } from '../../core/errors.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import type { CatalogEntry } from './catalog/schema.js';
import { FIXTURES, type FixtureId } from './catalog/fixtures.js';
import { ActionError, applyEntry } from './mutations-apply.js';
import type { LoadedCatalog } from './mutations-catalog.js';

export interface EntryEvidence {
  entry: CatalogEntry;
  input: CheckInput;
}

export interface ExecuteOptions {
  sandbox: SandboxKind;
  /** Crucible's state directory: hidden from the tests like `crucible ci` hides it. */
  stateDir: string;
  /** Entries evaluated at once. */
  concurrency: number;
  onEntry?: (done: number, total: number, entry: CatalogEntry) => void;
}

export async function executeCatalog(catalog: LoadedCatalog, options: ExecuteOptions): Promise<EntryEvidence[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-mutations-'));
  const stateDir = resolve(options.stateDir);
  await mkdir(stateDir, { recursive: true });
  const settings = new Map<FixtureId, CiSettings>();
  const settingsOf = (id: FixtureId): CiSettings => {
    let s = settings.get(id);
    if (!s) settings.set(id, (s = resolveCiSettings({ name: `fixture ${id}`, text: FIXTURES[id].ciConfig }, {})));
    return s;
  };
  const results: EntryEvidence[] = new Array<EntryEvidence>(catalog.entries.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < catalog.entries.length) {
      const index = next++;
      const entry = catalog.entries[index] as CatalogEntry;
      results[index] = await executeEntry(entry, `${catalog.source}: entries[${index}]`, join(scratch, String(index)), settingsOf(entry.fixture), {
        ...options,
        stateDir,
      });
      options.onEntry?.(++done, catalog.entries.length, entry);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, catalog.entries.length)) }, worker));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return results;
}

async function executeEntry(entry: CatalogEntry, where: string, dir: string, settings: CiSettings, options: ExecuteOptions): Promise<EntryEvidence> {
  let applied;
  try {
    applied = await applyEntry(join(dir, 'repo'), entry, where);
  } catch (error) {
    if (error instanceof ActionError) throw new InputError(`${error.message} (fix: correct the action so it applies to fixture ${entry.fixture})`);
    throw error;
  }
  const evaluation = await evaluateCheckout({
    checkout: { root: applied.root, gitDir: applied.gitDir },
    base: { ref: 'fixture', commit: applied.base },
    head: { ref: entry.id, commit: applied.head },
    settings,
    sandbox: options.sandbox,
    stateDir: options.stateDir,
    reportDir: join(dir, 'report'),
    commands: applied.commands,
    // One test run per entry: every fixture test passes at base, so "assumed" regressions are exact.
    baselineTests: false,
    outsideWrites: { writes: applied.outsideWrites, watched: applied.outsideWrites.length > 0 ? ['/'] : [], complete: true },
  });
  await rm(dir, { recursive: true, force: true });
  return { entry, input: evaluation.checkInput };
}
