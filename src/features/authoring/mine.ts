/**
 * `crucible mine [repo]`: tasks from a repository's own history. Walks it (mine-history.ts), judges
 * each commit that changes both tests and code in the sandbox (mine-candidate.ts), ranks and
 * deduplicates what is kept, and writes a task set with `repos/` and `oracle/` beside it, and
 * `mine.json`: every commit walked, kept (with its rank) or dropped (with the reason).
 *
 * Resumable: each judged candidate's verdict is stored in `<dest>/.mine/results/<sha>.json` with
 * the settings it was judged under, and a later run with the same settings takes it from there;
 * the task set is always rewritten whole from the verdicts, so the same history and settings give
 * the same set.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { git } from '../../infra/workspace/index.js';
import { gitDirOf } from './commits.js';
import { judgeCandidate, type CandidateVerdict, type MinedTask } from './mine-candidate.js';
import { walkHistory, type Candidate } from './mine-history.js';
import type { Usage } from '../../core/types/index.js';
import type { InstructionWriter } from './mine-writer.js';
import { slug } from './prompt.js';
import { SCAFFOLD_TEST_PATHS } from './split.js';
import { renderTask, type TaskYaml } from './taskset-edit.js';

export const MINE_SCHEMA_VERSION = 1;
export const MINE_TASKS_FILE = 'tasks.yaml';
export const MINE_SUMMARY_FILE = 'mine.json';
const STATE_DIR = '.mine';

export interface MineRequest {
  repo: string;
  /** The directory the task set is written to. */
  dest: string;
  since?: string;
  until?: string;
  limit?: number;
  paths?: string[];
  testPaths?: string[];
  testCommand?: string;
  /** Candidates judged at once. */
  jobs: number;
  /** Runs of each side per candidate (all must agree). */
  runs: number;
  /** Writes each kept task's instruction instead of the draft; applied when the set is written, so changing it judges nothing again. */
  writer?: InstructionWriter;
}

export interface MineOptions {
  stateDir: string;
  sandbox: SandboxKind;
  signal?: AbortSignal;
  /** One line per step of one candidate (`[3/12] abc1234 …`). */
  onProgress?: (line: string) => void;
}

export interface MineEntry {
  sha: string;
  subject: string;
  /** The task id it has (kept) or would have had. */
  id?: string;
  status: 'kept' | 'dropped';
  reason?: string;
  rank?: number;
  failToPass?: string[];
  fixLines?: number;
  /** Taken from an earlier run's verdict. */
  resumed?: true;
  /** Kept, with --writer: how its instruction was written (a model's metered call, or why the draft stands). */
  instruction?: { writer: string; usage?: Usage; reused?: true; error?: string };
}

/** A model writer's calls in this run: answers taken from an earlier run cost nothing and are only counted. */
export interface WriterSpend {
  spec: string;
  calls: number;
  reused: number;
  failed: number;
  /** Summed over this run's calls, as the gateway metered them; no costUsd when the model is unpriced. */
  usage: Omit<Usage, 'anomalies' | 'refused'>;
}

export interface MineSummary {
  schemaVersion: number;
  repo: string;
  head: string;
  settings: { since?: string; until?: string; limit?: number; paths?: string[]; runs: number; testCommand?: string; writer?: string };
  /** False when the run was interrupted: the candidates not yet judged are missing. */
  complete: boolean;
  kept: number;
  entries: MineEntry[];
  /** With --writer: its calls and what they cost. */
  writer?: WriterSpend;
  /** The task set written (absolute), when any task was kept. */
  tasksFile?: string;
}

interface StoredVerdict {
  key: string;
  verdict: CandidateVerdict;
}

export async function mineRepository(request: MineRequest, options: MineOptions): Promise<MineSummary> {
  const gitDir = await gitDirOf(request.repo);
  const head = (await git({ gitDir }, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  const dest = resolve(request.dest);
  await checkDest(dest, request.dest);
  const state = join(dest, STATE_DIR);
  await mkdir(join(state, 'results'), { recursive: true });
  const testGlobs = request.testPaths ?? SCAFFOLD_TEST_PATHS;
  const { candidates, skipped } = await walkHistory(gitDir, {
    testGlobs,
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.until !== undefined ? { until: request.until } : {}),
    ...(request.limit !== undefined ? { limit: request.limit } : {}),
    ...(request.paths?.length ? { paths: request.paths } : {}),
  });
  const key = createHash('sha256')
    .update(JSON.stringify({ v: MINE_SCHEMA_VERSION, runs: request.runs, testCommand: request.testCommand ?? null, testGlobs }))
    .digest('hex');

  const verdicts = new Map<string, { verdict: CandidateVerdict; resumed: boolean }>();
  const say = options.onProgress ?? ((): void => undefined);
  let next = 0;
  let done = 0;
  const stopped = (): boolean => options.signal?.aborted === true;
  const worker = async (): Promise<void> => {
    while (next < candidates.length && !stopped()) {
      const index = next++;
      const candidate = candidates[index] as Candidate;
      const tag = `[${index + 1}/${candidates.length}] ${candidate.sha.slice(0, 7)}`;
      const stored = await readVerdict(join(state, 'results', `${candidate.sha}.json`), key);
      if (stored !== undefined && (!stored.kept || existsSync(join(state, 'work', candidate.sha, 'repo')))) {
        verdicts.set(candidate.sha, { verdict: stored, resumed: true });
        say(`${tag} ${verdictLine(stored)} (from the earlier run)`);
        done++;
        continue;
      }
      say(`${tag} ${candidate.subject}`);
      const workDir = join(state, 'work', candidate.sha);
      let verdict: CandidateVerdict;
      try {
        verdict = await judgeCandidate(candidate, taskIdOf(candidate), workDir, {
          stateDir: options.stateDir,
          sandbox: options.sandbox,
          runs: request.runs,
          ...(request.testCommand !== undefined ? { testCommand: request.testCommand } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          onProgress: (step) => say(`${tag}   ${step}`),
        });
      } catch (error) {
        if (stopped()) return;
        throw error;
      }
      // A run cut short by the interruption proves nothing about the commit: judged again on resume.
      if (stopped()) return;
      if (!verdict.kept) await rm(workDir, { recursive: true, force: true });
      await writeAtomic(join(state, 'results', `${candidate.sha}.json`), `${JSON.stringify({ key, verdict } satisfies StoredVerdict)}\n`);
      verdicts.set(candidate.sha, { verdict, resumed: false });
      done++;
      say(`${tag} ${verdictLine(verdict)} (${done} of ${candidates.length} done)`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(request.jobs, candidates.length)) }, worker));

  const entries = rankAndDedupe(candidates, verdicts);
  const kept = entries.filter((e) => e.status === 'kept');
  const complete = verdicts.size === candidates.length;
  const spend = request.writer !== undefined ? emptySpend(request.writer.spec) : undefined;
  const tasksFile =
    kept.length > 0
      ? await writeTaskSet(dest, state, candidates, kept, verdicts, request.writer && spend ? { writer: request.writer, spend, say } : undefined)
      : undefined;
  if (tasksFile === undefined) await rm(join(dest, MINE_TASKS_FILE), { force: true });
  const summary: MineSummary = {
    schemaVersion: MINE_SCHEMA_VERSION,
    repo: resolve(request.repo),
    head,
    settings: {
      ...(request.since !== undefined ? { since: request.since } : {}),
      ...(request.until !== undefined ? { until: request.until } : {}),
      ...(request.limit !== undefined ? { limit: request.limit } : {}),
      ...(request.paths?.length ? { paths: request.paths } : {}),
      runs: request.runs,
      ...(request.testCommand !== undefined ? { testCommand: request.testCommand } : {}),
      ...(request.writer !== undefined ? { writer: request.writer.spec } : {}),
    },
    complete,
    kept: kept.length,
    ...(spend !== undefined ? { writer: spend } : {}),
    entries: [...entries, ...skipped.map((s): MineEntry => ({ sha: s.sha, subject: s.subject, status: 'dropped', reason: s.reason }))],
    ...(tasksFile !== undefined ? { tasksFile } : {}),
  };
  await writeAtomic(join(dest, MINE_SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

/** `fix-median-of-even-lists-1a2b3c4`: readable, and unique by the commit. */
function taskIdOf(candidate: Candidate): string {
  return `${slug(candidate.subject) ?? 'commit'}-${candidate.sha.slice(0, 7)}`;
}

/** A directory mine may write into: missing, empty, or one it wrote before (it has .mine/ or mine.json). */
async function checkDest(dest: string, shown: string): Promise<void> {
  const entries = await readdir(dest).catch(() => undefined);
  if (entries === undefined || entries.length === 0) return;
  if (entries.includes(STATE_DIR) || entries.includes(MINE_SUMMARY_FILE)) return;
  throw new InputError(`--dest ${shown}: not empty and not written by crucible mine (fix: name a new directory, e.g. --dest mined)`);
}

async function readVerdict(file: string, key: string): Promise<CandidateVerdict | undefined> {
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as StoredVerdict;
    return stored.key === key ? stored.verdict : undefined;
  } catch {
    return undefined;
  }
}

/** Written beside and renamed into place, so an interrupted write never leaves half a file to resume from. */
async function writeAtomic(file: string, text: string): Promise<void> {
  const temp = `${file}.new-${process.pid}`;
  await writeFile(temp, text);
  await rename(temp, file);
}

function verdictLine(verdict: CandidateVerdict): string {
  return verdict.kept ? `kept (${verdict.task.failToPass.length} fail-to-pass, fix of ${verdict.task.fixLines} lines)` : `dropped: ${verdict.reason}`;
}

/**
 * Kept tasks ranked: more fail-to-pass tests first (more evidence per task), then the smaller fix
 * (a task an agent can be expected to finish), then the commit id, so the order never depends on
 * which job finished first. The same fix kept twice (a cherry-pick, a revert of a revert) is
 * kept once, the lower-ranked copy dropped as its duplicate. History order otherwise.
 */
function rankAndDedupe(candidates: readonly Candidate[], verdicts: ReadonlyMap<string, { verdict: CandidateVerdict; resumed: boolean }>): MineEntry[] {
  const keptTasks: Array<{ candidate: Candidate; task: MinedTask; resumed: boolean }> = [];
  const entries = new Map<string, MineEntry>();
  for (const candidate of candidates) {
    const judged = verdicts.get(candidate.sha);
    if (judged === undefined) continue;
    const base = { sha: candidate.sha, subject: candidate.subject, id: taskIdOf(candidate), ...(judged.resumed ? { resumed: true as const } : {}) };
    if (judged.verdict.kept) keptTasks.push({ candidate, task: judged.verdict.task, resumed: judged.resumed });
    else entries.set(candidate.sha, { ...base, status: 'dropped', reason: judged.verdict.reason });
  }
  keptTasks.sort(
    (a, b) => b.task.failToPass.length - a.task.failToPass.length || a.task.fixLines - b.task.fixLines || (a.candidate.sha < b.candidate.sha ? -1 : 1),
  );
  const byFix = new Map<string, string>();
  let rank = 0;
  for (const { candidate, task, resumed } of keptTasks) {
    const base = { sha: candidate.sha, subject: candidate.subject, id: task.id, ...(resumed ? { resumed: true as const } : {}) };
    const first = byFix.get(task.fixHash);
    if (first !== undefined) {
      entries.set(candidate.sha, { ...base, status: 'dropped', reason: `duplicate of ${first}: the same fix` });
      continue;
    }
    byFix.set(task.fixHash, task.id);
    entries.set(candidate.sha, { ...base, status: 'kept', rank: ++rank, failToPass: task.failToPass, fixLines: task.fixLines });
  }
  // Kept first in rank order, then the dropped in history order.
  const all = candidates.map((c) => entries.get(c.sha)).filter((e): e is MineEntry => e !== undefined);
  return [...all.filter((e) => e.status === 'kept').sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0)), ...all.filter((e) => e.status === 'dropped')];
}

async function writeTaskSet(
  dest: string,
  state: string,
  candidates: readonly Candidate[],
  kept: readonly MineEntry[],
  verdicts: ReadonlyMap<string, { verdict: CandidateVerdict }>,
  writing: { writer: InstructionWriter; spend: WriterSpend; say: (line: string) => void } | undefined,
): Promise<string> {
  const writer = writing?.writer;
  // Rewritten whole from the verdicts: what an earlier run kept and this one did not goes.
  for (const sub of ['repos', 'oracle']) await rm(join(dest, sub), { recursive: true, force: true });
  await mkdir(join(dest, 'oracle'), { recursive: true });
  const blocks: string[] = [];
  for (const entry of kept) {
    const judged = verdicts.get(entry.sha)?.verdict;
    const candidate = candidates.find((c) => c.sha === entry.sha);
    if (judged === undefined || !judged.kept || candidate === undefined) continue;
    const task = judged.task;
    const work = join(state, 'work', entry.sha);
    await cp(join(work, 'repo'), join(dest, 'repos', task.id), { recursive: true, verbatimSymlinks: true });
    await cp(join(work, 'oracle.patch'), join(dest, 'oracle', `${task.id}.patch`));
    let instruction = task.instruction;
    if (writing !== undefined && task.instructionSource !== undefined) {
      const written = await writing.writer.write(task.instructionSource, { id: task.id, stateDir: join(state, 'instructions') });
      entry.instruction = {
        writer: writing.writer.spec,
        ...(written.usage ? { usage: written.usage } : {}),
        ...(written.reused ? { reused: true as const } : {}),
        ...(written.error !== undefined ? { error: written.error } : {}),
      };
      countSpend(writing.spend, written);
      if (written.error === undefined) instruction = written.text;
      else writing.say(`${task.id}: --writer ${writing.writer.spec} gave no instruction (${written.error}); the drafted one stands`);
    }
    const yaml: TaskYaml = {
      id: task.id,
      repo: { path: `repos/${task.id}` },
      instruction,
      ...(task.setup.length > 0 ? { setup: task.setup } : {}),
      tests: {
        command: task.command,
        ...(task.format !== undefined ? { format: task.format } : {}),
        fail_to_pass: task.failToPass,
        pass_to_pass: task.passToPass,
        ...(task.testPaths !== undefined ? { test_paths: task.testPaths } : {}),
      },
      oracle: { patch: `oracle/${task.id}.patch` },
    };
    const what = `${candidate.merge ? 'merge ' : ''}${entry.sha.slice(0, 12)} "${candidate.subject.replace(/\s+/g, ' ').slice(0, 80)}"`;
    const comment = `#${entry.rank ?? 0}: mined from ${what}; ${task.failToPass.length} fail-to-pass, fix of ${task.fixLines} lines in ${task.fixFiles} file${task.fixFiles === 1 ? '' : 's'}`;
    blocks.push(renderTask(yaml, 2, { comment, flow: ['repo', 'oracle'] }));
  }
  const header = [
    '# Tasks mined by `crucible mine` from the history of this repository (docs/mining.md).',
    "# Each starts from the parent of its commit with the commit's tests; its oracle is the rest of the commit.",
    writer !== undefined
      ? `# Instructions are written by --writer ${writer.spec} from the commit message and the failing tests: read them before running agents.`
      : '# Instructions are drafted from the commit message and the failing tests: read them before running agents.',
    '# mine.json says why every other commit walked was dropped. Rewritten whole by each run of crucible mine.',
  ];
  const file = join(dest, MINE_TASKS_FILE);
  await writeAtomic(file, `${header.join('\n')}\ntasks:\n${blocks.join('\n')}`);
  return file;
}

function emptySpend(spec: string): WriterSpend {
  return {
    spec,
    calls: 0,
    reused: 0,
    failed: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, requests: 0, costUsd: 0 },
  };
}

/** Adds one task's writing to the run's spend; a call with no price leaves the total unpriced, never a guess. */
function countSpend(spend: WriterSpend, written: { usage?: Usage; reused?: true; error?: string }): void {
  if (written.reused) {
    spend.reused++;
    return;
  }
  if (written.error !== undefined) spend.failed++;
  if (written.usage === undefined) return;
  spend.calls++;
  const total = spend.usage;
  const add = written.usage;
  total.inputTokens += add.inputTokens;
  total.outputTokens += add.outputTokens;
  total.cacheReadTokens += add.cacheReadTokens;
  total.cacheWriteTokens += add.cacheWriteTokens;
  total.reasoningTokens += add.reasoningTokens;
  total.requests += add.requests;
  if (add.costUsd === undefined || total.costUsd === undefined) delete total.costUsd;
  else total.costUsd += add.costUsd;
}
