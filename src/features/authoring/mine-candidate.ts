/**
 * One `crucible mine` candidate, built exactly as `task new` builds a task (starting point = the
 * parent's files with the commit's test files; oracle = the commit's other changes; setup from the
 * starting point's own lockfile), then judged by running its tests in the sandbox: kept when at
 * least one test fails before the fix and passes with it, no test that passed before fails with
 * it, and every test gives the same outcome on each side in every one of `runs` repetitions (the
 * baseline is what the nop agent is graded on, the oracle side what the oracle agent is).
 * Everything happens in the candidate's own work directory; nothing runs outside the sandbox.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { DEFAULT_TEST_PATHS, loadTaskSet } from '../../domain/config/index.js';
import { runTaskTests, suggestTestIds, type TaskTestSide } from '../../engine/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { commitMessages, diffOf } from './commits.js';
import { detectRunner, type DetectedRunner, type InitFormat } from './init-detect.js';
import { runWithConfirmedFormat, unusable } from './init-run.js';
import { sniffOutput } from './report-sniff.js';
import type { Candidate } from './mine-history.js';
import { instructionMessage, writeInstruction, type InstructionSource } from './mine-instruction.js';
import { neededTestPaths } from './split.js';
import { writeStartingPoint } from './starting-point.js';
import { addTask, type TaskYaml } from './taskset-edit.js';

export interface CandidateSettings {
  stateDir: string;
  sandbox: SandboxKind;
  /** Runs of each side; every one must agree (1 = no repetition). */
  runs: number;
  /** Replaces the detected command for every commit. */
  testCommand?: string;
  signal?: AbortSignal;
  onProgress?: (step: string) => void;
}

/** What a kept candidate becomes in the task set. */
export interface MinedTask {
  id: string;
  /** The drafted instruction (mine-instruction.ts). */
  instruction: string;
  /** What it was drafted from, for a `--writer` to write it again (missing in verdicts stored before it was kept). */
  instructionSource?: InstructionSource;
  setup: string[];
  command: string;
  format?: InitFormat;
  failToPass: string[];
  passToPass: 'all_others' | string[];
  testPaths?: string[];
  /** Lines the fix adds and removes, and the files it changes: the size of the fix. */
  fixLines: number;
  fixFiles: number;
  /** The fix's diff without its index lines: the same fix twice (a cherry-pick) hashes the same. */
  fixHash: string;
}

export type CandidateVerdict = { kept: true; task: MinedTask } | { kept: false; reason: string };

/** The candidate's work directory holds `repo/`, `oracle.patch` and a one-task `tasks.yaml`. */
export async function judgeCandidate(candidate: Candidate, id: string, workDir: string, settings: CandidateSettings): Promise<CandidateVerdict> {
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true });
  const repoDir = join(workDir, 'repo');
  await writeStartingPoint(candidate.range, candidate.split.tests, repoDir);
  const patch = await diffOf(candidate.range, candidate.split.source);
  await writeFile(join(workDir, 'oracle.patch'), patch);
  const detected = detectRunner(repoDir);
  if (detected === undefined && settings.testCommand === undefined)
    return { kept: false, reason: 'no test runner found at the parent commit (no package.json test script, Python tests, go.mod or Cargo.toml)' };
  const runner: DetectedRunner =
    settings.testCommand !== undefined
      ? { runner: detected?.runner ?? 'npm-script', evidence: '--test-command', command: settings.testCommand, setup: detected?.setup ?? [] }
      : (detected as DetectedRunner);
  const testPaths = neededTestPaths(candidate.split, DEFAULT_TEST_PATHS);
  const tasksFile = join(workDir, 'tasks.yaml');
  const taskOf = async (format: InitFormat | undefined): Promise<Parameters<typeof runTaskTests>[0]> => {
    const yaml: TaskYaml = {
      id,
      repo: { path: 'repo' },
      instruction: 'mining',
      ...(runner.setup.length > 0 ? { setup: runner.setup } : {}),
      tests: {
        command: runner.command,
        ...(format !== undefined ? { format } : {}),
        fail_to_pass: ['(found by crucible mine)'],
        pass_to_pass: 'all_others',
        ...(testPaths !== undefined ? { test_paths: testPaths } : {}),
      },
      oracle: { patch: 'oracle.patch' },
    };
    await writeFile(tasksFile, addTask(undefined, yaml).text);
    const task = loadTaskSet(tasksFile).tasks[0];
    if (task === undefined) throw new Error(`${tasksFile}: the candidate's task did not load`);
    return task;
  };
  const runBoth = async (format: InitFormat | undefined): Promise<TaskTestSide[]> =>
    runTaskTests(await taskOf(format), {
      stateDir: settings.stateDir,
      sandbox: settings.sandbox,
      sides: ['baseline', 'oracle'],
      ...(settings.signal ? { signal: settings.signal } : {}),
      ...(settings.onProgress ? { onProgress: settings.onProgress } : {}),
    });

  let first: { runs: TaskTestSide[]; format: InitFormat | undefined };
  try {
    first = await runWithConfirmedFormat(runner.format, runBoth);
  } catch (error) {
    // A setup that fails, a patch that does not apply: this commit cannot make a task.
    if (error instanceof InputError && settings.signal?.aborted !== true)
      return { kept: false, reason: oneLine(error.message.replace(/^.*?: tasks\[[^\]]*\]: /, '')) };
    throw error;
  }
  const failed = unusable(first.runs);
  if (failed !== undefined)
    return {
      kept: false,
      reason: oneLine(
        `no usable test report ${sideName(failed.at)} (${failed.evidence.invalidReason ?? ''}); its output is ${sniffOutput(failed.evidence.outputTail).looksLike}`,
      ),
    };
  const [baseline, oracle] = first.runs as [TaskTestSide, TaskTestSide];
  const suggestion = suggestTestIds(baseline.tests, oracle.tests);
  if (suggestion.failToPass.length === 0)
    return {
      kept: false,
      reason: `no test fails before the fix and passes after it (${baseline.tests.length} tests ran; its tests pass, or fail, on both sides)`,
    };
  // Repeated before anything else is judged, so a flaky test is called flaky, not a broken one.
  const seen = [first.runs];
  for (let i = 1; i < settings.runs; i++) {
    settings.onProgress?.(`repetition ${i + 1} of ${settings.runs}`);
    seen.push(await runBoth(first.format));
  }
  const flaky = flakyTest(seen);
  if (flaky !== undefined) return { kept: false, reason: `flaky: ${flaky}` };
  const passedBefore = new Set(baseline.tests.filter((t) => t.outcome === 'passed').map((t) => t.id));
  const broken = oracle.tests.filter((t) => passedBefore.has(t.id) && t.outcome !== 'passed').map((t) => t.id);
  if (broken.length > 0) return { kept: false, reason: `the fix breaks ${broken.length} test(s) that passed before it: ${list(broken)}` };

  const stats = fixStats(patch);
  const instructionSource: InstructionSource = {
    message: instructionMessage(await commitMessages(candidate.range), candidate.subject),
    failToPass: suggestion.failToPass,
    messages: Object.fromEntries(suggestion.failToPass.flatMap((t) => (baseline.messages[t] !== undefined ? [[t, baseline.messages[t]]] : []))),
  };
  return {
    kept: true,
    task: {
      id,
      instruction: writeInstruction(instructionSource),
      instructionSource,
      setup: runner.setup,
      command: runner.command,
      ...(first.format !== undefined ? { format: first.format } : {}),
      failToPass: suggestion.failToPass,
      passToPass: suggestion.allOthersAgrees ? 'all_others' : suggestion.passToPass,
      ...(testPaths !== undefined ? { testPaths } : {}),
      ...stats,
    },
  };
}

/** The first test whose outcome on a side differs between repetitions, said with its counts. */
function flakyTest(repetitions: readonly TaskTestSide[][]): string | undefined {
  for (const index of [0, 1]) {
    const outcomes = new Map<string, string[]>();
    for (const runs of repetitions) {
      const side = runs[index];
      if (side === undefined) continue;
      if (side.evidence.invalidReason !== undefined)
        return `the run ${sideName(side.at)} gave no usable report in one repetition (${side.evidence.invalidReason})`;
      for (const t of side.tests) outcomes.set(t.id, [...(outcomes.get(t.id) ?? []), t.outcome]);
    }
    for (const [id, seen] of outcomes) {
      if (seen.length === repetitions.length && new Set(seen).size === 1) continue;
      const passed = seen.filter((o) => o === 'passed').length;
      return `"${id}" ${sideName(index === 0 ? 'baseline' : 'oracle')} passed ${passed} of ${repetitions.length} runs`;
    }
  }
  return undefined;
}

function fixStats(patch: string): { fixLines: number; fixFiles: number; fixHash: string } {
  const lines = patch.split('\n');
  const fixLines = lines.filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l)).length;
  const fixFiles = lines.filter((l) => l.startsWith('diff --git ')).length;
  const body = lines.filter((l) => !l.startsWith('index ')).join('\n');
  return { fixLines, fixFiles, fixHash: createHash('sha256').update(body).digest('hex') };
}

function sideName(at: 'baseline' | 'oracle'): string {
  return at === 'baseline' ? 'before the fix' : 'with the fix';
}

function list(ids: readonly string[]): string {
  return ids.slice(0, 3).join(', ') + (ids.length > 3 ? ', …' : '');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').slice(0, 300);
}
