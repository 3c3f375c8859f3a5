/**
 * The interactive side of `crucible task new`: asks for the values the flags left out, one line
 * each, with a default the author can accept with Enter. Flags always win: a value given is never
 * asked for. The CLI calls this only when stdin is a terminal.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { git } from '../../infra/workspace/index.js';
import { gitDirOf, resolveRange } from './commits.js';
import type { ScaffoldRequest } from './scaffold.js';

export interface PromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** What can be asked for; `testCommand` only when the task set has no default for it. */
export type Answerable = Pick<ScaffoldRequest, 'repo' | 'fromCommits' | 'id' | 'testCommand'>;

export async function askForMissing(given: Partial<Answerable>, io: PromptStreams, opts: { needsTestCommand: boolean }): Promise<Partial<Answerable>> {
  const rl = createInterface({ input: io.input, output: io.output, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string, fallback: string | undefined): Promise<string | undefined> => {
    io.output.write(`${question}${fallback ? ` [${fallback}]` : ''}: `);
    const next = await lines.next();
    const answer = next.done === true ? '' : String(next.value).trim();
    return answer || fallback;
  };
  try {
    const out: Partial<Answerable> = { ...given };
    out.repo ??= await ask('Git repository (a directory)', '.');
    out.fromCommits ??= await ask('Commits A..B (A has the bug, B the fix and its tests)', 'HEAD~1..HEAD');
    out.id ??= await ask('Task id', await idFromSubject(out.repo, out.fromCommits));
    if (opts.needsTestCommand) out.testCommand ??= await ask('Test command (writes JUnit XML to $CRUCIBLE_JUNIT)', guessTestCommand(out.repo));
    return out;
  } finally {
    rl.close();
  }
}

/** A task id from the subject of B's commit message (`Fix median of even lists` → `fix-median-of-even-lists`). */
async function idFromSubject(repo: string | undefined, range: string | undefined): Promise<string | undefined> {
  if (!repo || !range) return undefined;
  try {
    const resolved = await resolveRange(await gitDirOf(repo), range);
    const subject = (await git({ gitDir: resolved.gitDir }, ['log', '-1', '--format=%s', resolved.to])).trim();
    return slug(subject);
  } catch {
    return undefined; // the scaffold itself reports a bad repo or range, naming the flag
  }
}

export function slug(text: string): string | undefined {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return s === '' ? undefined : s;
}

/** A starting suggestion by the files the repository has; the author confirms or replaces it. */
function guessTestCommand(repo: string | undefined): string | undefined {
  if (!repo) return undefined;
  const has = (name: string): boolean => existsSync(join(repo, name));
  if (has('pyproject.toml') || has('setup.py') || has('pytest.ini') || has('setup.cfg')) return 'python3 -m pytest -q --junitxml="$CRUCIBLE_JUNIT"';
  if (has('package.json')) return 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT"';
  if (has('go.mod')) return 'go test -v ./... 2>&1 | go-junit-report -set-exit-code > "$CRUCIBLE_JUNIT"';
  return undefined;
}
