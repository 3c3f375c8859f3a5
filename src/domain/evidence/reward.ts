/**
 * The reward verifier (`tests.kind: reward`, Harbor's tests/test.sh): a command that writes one
 * number in [0, 1] to a file. The file is `$CRUCIBLE_REWARD`, in a directory with a random name
 * created just before the run inside the results directory, which no agent phase can reach: a
 * reward written anywhere else (the workspace, HOME, /tmp, /logs/verifier of the agent's
 * container) is never read. The run becomes evidence of one test, REWARD_TEST_ID, which passes on
 * a reward of exactly 1 and fails on any other or on none; a file that is not a number in [0, 1]
 * (or a symlink, or a timeout) makes the run unusable, which never passes either.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { cutOutput } from '../../core/format/index.js';
import type { Executor } from '../../infra/sandbox/index.js';
import { REWARD_TEST_ID, type TestCaseResult, type TestRunEvidence } from '../../core/types/index.js';
import { prepareNodeSentinel } from './node-sentinel.js';
import { pythonSafePathEnv } from './python-safe-path.js';
import { startSentinel } from './python-sentinel.js';
import { startFailure } from './start-failure.js';
import { OUTPUT_TAIL_CHARS } from './test-outcome.js';

/** Harbor's file names, read in Harbor's order: reward.txt, then reward.json. */
export const REWARD_FILES = ['reward.txt', 'reward.json'] as const;

/** A reward file is one number; anything larger is not one. */
const MAX_REWARD_BYTES = 4096;

/** A plain decimal: no sign, exponent, hex, NaN or Infinity. */
const DECIMAL = /^\d+(?:\.\d+)?$/;

/** A reward; none written (a verifier that writes nothing on failure: a FAIL, not an unusable run); or why it is unreadable. */
export type RewardReading = { reward: number } | { absent: true } | { problem: string };

/** `reward.txt`'s text: one decimal number in [0, 1], surrounding whitespace allowed, nothing else. */
export function parseRewardText(text: string): RewardReading {
  const value = text.trim();
  if (value === '') return { problem: 'reward.txt is empty' };
  if (!DECIMAL.test(value)) return { problem: `reward.txt holds ${JSON.stringify(value.slice(0, 40))}, not a number in [0, 1]` };
  return inRange(Number(value), 'reward.txt');
}

/** `reward.json`: an object whose `reward` is a number in [0, 1] (other keys are ignored). */
export function parseRewardJson(text: string): RewardReading {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'reward.json is not valid JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { problem: 'reward.json is not an object with a "reward" number' };
  const reward = (json as Record<string, unknown>).reward;
  if (typeof reward !== 'number') return { problem: 'reward.json has no "reward" number' };
  return inRange(reward, 'reward.json');
}

function inRange(value: number, file: string): RewardReading {
  if (!Number.isFinite(value) || value < 0 || value > 1) return { problem: `${file} holds ${value}, outside [0, 1]` };
  return { reward: value };
}

/** The reward in `dir`: reward.txt if there is one, else reward.json; each opened without following a symlink. */
export async function readReward(dir: string): Promise<RewardReading> {
  for (const name of REWARD_FILES) {
    const text = await readSmallFile(join(dir, name));
    if (text === undefined) continue;
    if (typeof text === 'object') return text;
    return name === 'reward.txt' ? parseRewardText(text) : parseRewardJson(text);
  }
  return { absent: true };
}

async function readSmallFile(path: string): Promise<string | { problem: string } | undefined> {
  let handle;
  try {
    // O_NONBLOCK: a FIFO planted at the reward path must not make the open wait for a writer forever.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'ENOENT' ? undefined : { problem: `the reward file cannot be read (${code ?? 'error'}): a symlink is never followed` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problem: 'the reward path is not a regular file' };
    if (stat.size > MAX_REWARD_BYTES) return { problem: `the reward file is ${stat.size} bytes; a reward is one number` };
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

export interface RewardRunRequest {
  executor: Executor;
  workspace: string;
  command: string;
  /** A fresh directory outside the workspace, writable in the sandbox; the reward directory is made in it. */
  resultsDir: string;
  timeoutMs: number;
  /** The task's `tests.network`; default none. */
  network?: 'none' | 'host';
  /** The task's `tests.exec`: run directly, no shell; absent: `sh -c command`. */
  exec?: readonly string[];
  /** The task's `tests.env`. Crucible's own variables win over it. */
  env?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  /** The Python sentinel, as for runTests. */
  sentinel?: { dir: string; changeFiles: readonly string[]; roots?: readonly string[] };
}

/** Makes the reward directory (random name), runs the verifier (without network unless the task says host), reads the reward. */
export async function runRewardVerifier(req: RewardRunRequest): Promise<{ evidence: TestRunEvidence; cases?: TestCaseResult[] }> {
  const rewardDir = join(req.resultsDir, `reward-${randomBytes(12).toString('hex')}`);
  await mkdir(rewardDir);
  // The verifier's own files may lie in the workspace and write the reward from there: the reward
  // file is not one only the runner writes, so it is not a report path of the sentinel.
  const sentinel = req.sentinel
    ? await startSentinel(req.sentinel.dir, { roots: req.sentinel.roots ?? [req.workspace], changeFiles: req.sentinel.changeFiles, reports: [] })
    : undefined;
  const python = sentinel ? sentinel.env : await pythonSafePathEnv(req.resultsDir);
  const node = await prepareNodeSentinel(req.resultsDir);
  const result = await req.executor
    .exec({
      // A verifier given as a program runs directly, by its shebang: no shell is assumed there.
      argv: req.exec !== undefined ? [...req.exec] : node.argv(req.command),
      cwd: req.workspace,
      env: {
        ...req.env,
        ...python,
        ...(req.exec !== undefined ? { NODE_OPTIONS: node.nodeOptions } : {}),
        CRUCIBLE_REWARD: join(rewardDir, 'reward.txt'),
        CRUCIBLE_REWARD_DIR: rewardDir,
        CI: 'true',
      },
      timeoutMs: req.timeoutMs,
      maxOutputBytes: 1024 * 1024,
      network: req.network ?? 'none',
      signal: req.signal,
    })
    .catch(async (error: unknown) => {
      await sentinel?.collect(0);
      throw error;
    });
  const seen = await sentinel?.collect();
  const reading = await readReward(rewardDir);
  const output = `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`;
  // A verifier that never started wrote no reward because it never ran: no evidence, never a FAIL.
  const notStarted = startFailure(result, !('absent' in reading));
  const problem = notStarted
    ? `the verifier could not start: ${notStarted.reason}`
    : result.timedOut
      ? `the verifier timed out after ${Math.round(result.durationMs)} ms`
      : result.exitCode === null
        ? 'the verifier ended without an exit code (killed by a signal)'
        : 'problem' in reading
          ? reading.problem
          : undefined;
  const reward = 'reward' in reading ? reading.reward : undefined;
  const passed = problem === undefined && reward === 1;
  const note = reward === undefined ? 'the verifier wrote no reward' : `reward ${reward}`;
  const evidence: TestRunEvidence = {
    command: req.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    parsed: problem === undefined ? 1 : 0,
    // A verifier's exit status is its own business (test.sh often ends with pytest's): the reward decides.
    consistent: true,
    failToPass: {
      passed: passed ? 1 : 0,
      total: 1,
      failing: passed ? [] : [{ id: REWARD_TEST_ID, reason: problem === undefined ? 'failed' : 'missing' }],
    },
    passToPass: { passed: 0, total: 0, failing: [] },
    outputTail: cutOutput(output, { maxChars: OUTPUT_TAIL_CHARS }),
    ...(problem !== undefined ? { invalidReason: problem } : {}),
    ...(notStarted ? { notStarted } : {}),
    ...(reward !== undefined && problem === undefined ? { reward } : {}),
    ...(result.limitExceeded ? { limitExceeded: result.limitExceeded } : {}),
    // As for a test run: a report the verifier forged on the supervisor's channel is evidence (the supervisor check).
    ...(result.forgedReport !== undefined ? { forgedReport: result.forgedReport } : {}),
    ...(seen && (seen.processes > 0 || seen.garbled !== undefined) ? { sentinel: seen } : {}),
  };
  const runnerWrites = await node.writes(req.workspace);
  if (runnerWrites.length > 0) evidence.runnerWrites = runnerWrites;
  if (problem !== undefined) return { evidence };
  return { evidence, cases: [{ id: REWARD_TEST_ID, status: passed ? 'passed' : 'failed', message: note }] };
}
