import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resumeCommand } from '../../src/cli/commands/resume.js';
import { captureIo } from '../helpers/cli.js';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { executeRun, readCheckpoint } from '../../src/engine/index.js';
import { RUN_FILES } from '../../src/domain/run-dir/index.js';
import { exportSweBench, writeSweBenchExport, sweBenchFileNames } from '../../src/features/grade/export-swe-bench.js';
import { gradeRunOptions } from '../../src/features/grade/options.js';
import { readPredictions } from '../../src/features/grade/predictions.js';
import { loadRunInput } from '../../src/features/suite/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

/** Two of the bundled examples: enough to show a pass and a tamper per task, cheap enough to run here. */
const TASKS = { 'js-slugify': 'js-slugify', 'js-sortby': 'js-sortby' } as const;

/** A copy of an example repo as a git repository, for making and applying patches. */
function repoCopy(repo: string): string {
  const dir = join(tempDir(), repo);
  cpSync(join('examples/repos', repo), dir, { recursive: true });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
  return dir;
}

/** A patch that edits the task's test file (and fixes nothing): what a model gaming the tests submits. */
function testEditingPatch(repo: string, testFile: string): string {
  const dir = repoCopy(repo);
  const file = join(dir, testFile);
  writeFileSync(file, `${readFileSync(file, 'utf8')}// these expectations are wrong\n`);
  return execFileSync('git', ['diff'], { cwd: dir, encoding: 'utf8' });
}

/** The files a patch leaves in a fresh copy of the repo, so two patches can be compared by what they do. */
function applied(repo: string, patch: string): Record<string, string> {
  const dir = repoCopy(repo);
  execFileSync('git', ['apply', '-'], { cwd: dir, input: patch });
  const changed = execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3));
  return Object.fromEntries(changed.map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

describe('crucible grade', () => {
  it(
    'grades an honest prediction PASS and a test-editing one FAIL tampered, a patch that does not apply FAIL and an empty one FAIL no_changes; export round-trips the predictions',
    async () => {
      const dir = tempDir();
      const honest = Object.keys(TASKS).map((id) => ({
        instance_id: id,
        model_name_or_path: 'honest',
        model_patch: readFileSync(`examples/oracles/${id}.patch`, 'utf8'),
      }));
      const tests: Record<string, string> = { 'js-slugify': 'test/slugify.test.mjs', 'js-sortby': 'test/sort-by.test.mjs' };
      const cheats = Object.entries(TASKS).map(([id, repo]) => ({
        instance_id: id,
        model_name_or_path: 'org/cheater',
        model_patch: testEditingPatch(repo, tests[id] as string),
      }));
      const stale = {
        instance_id: 'js-slugify',
        model_name_or_path: 'stale',
        model_patch: '--- a/src/slugify.mjs\n+++ b/src/slugify.mjs\n@@ -1 +1 @@\n-nothing like this line\n+x\n',
      };
      const file = join(dir, 'predictions.jsonl');
      const empty = { instance_id: 'js-sortby', model_name_or_path: 'stale', model_patch: '' };
      writeFileSync(file, [...honest, ...cheats, stale, empty].map((p) => JSON.stringify(p)).join('\n'));
      const stateDir = join(dir, 'state');

      const { options } = gradeRunOptions({ input: loadRunInput('examples/tasks.yaml'), predictions: file, stateDir, sandbox: 'bwrap', concurrency: 2 });
      expect(options.agents).toEqual(['honest', 'org/cheater', 'stale']);
      const outcome = await executeRun(options);
      const verdicts = Object.fromEntries(outcome.attempts.map((a) => [`${a.agent} ${a.taskId}`, `${a.verdict} ${a.cause}`]));
      expect(verdicts).toEqual({
        'honest js-slugify': 'PASS passed',
        'honest js-sortby': 'PASS passed',
        'org/cheater js-slugify': 'FAIL tampered',
        'org/cheater js-sortby': 'FAIL tampered',
        'stale js-slugify': 'FAIL patch_not_applied',
        'stale js-sortby': 'FAIL no_changes',
      });
      expect(outcome.attempts.find((a) => a.agent === 'stale')?.message).toMatch(/the patch does not apply/);

      const exported = await exportSweBench(outcome.runDir, outcome.summary.runId);
      const byAgent = Object.fromEntries(exported.exports.map((e) => [e.agent, e]));
      expect(byAgent.honest?.report).toMatchObject({ resolved_ids: ['js-slugify', 'js-sortby'], unresolved_ids: [], error_ids: [], schema_version: 2 });
      expect(byAgent['org/cheater']?.report).toMatchObject({ resolved_ids: [], unresolved_ids: ['js-slugify', 'js-sortby'] });
      // The stale patch was submitted (not empty) and did not apply: SWE-bench's harness writes no report for it, an error.
      expect(byAgent.stale?.report).toMatchObject({
        resolved_ids: [],
        unresolved_ids: [],
        empty_patch_ids: ['js-sortby'],
        error_ids: ['js-slugify'],
        completed_ids: [],
        submitted_ids: ['js-slugify', 'js-sortby'],
      });

      // Written as files SWE-bench reads, and read back by grade's own reader: the same predictions.
      const out = join(dir, 'export');
      await writeSweBenchExport(out, outcome.summary.runId, exported);
      const report = JSON.parse(readFileSync(join(out, sweBenchFileNames('org/cheater', outcome.summary.runId).report), 'utf8')) as Record<string, unknown>;
      expect(report.unresolved_ids).toEqual(['js-slugify', 'js-sortby']);
      for (const agent of ['honest', 'org/cheater']) {
        const back = readPredictions(join(out, sweBenchFileNames(agent, outcome.summary.runId).predictions));
        const original = [...honest, ...cheats].filter((p) => p.model_name_or_path === agent);
        expect(back.map((p) => [p.taskId, p.model])).toEqual(original.map((p) => [p.instance_id, p.model_name_or_path]));
        for (const p of back) {
          // The patch as submitted, byte for byte, not git's regenerated diff of it.
          expect(p.patch).toBe(original.find((o) => o.instance_id === p.taskId)?.model_patch);
          const repo = TASKS[p.taskId as keyof typeof TASKS];
          expect(applied(repo, p.patch)).toEqual(applied(repo, original.find((o) => o.instance_id === p.taskId)?.model_patch as string));
        }
      }
    },
    attemptBudget(6 + 2),
  );

  it(
    'resumes an interrupted grading run from its predictions, and refuses when they changed',
    async () => {
      const dir = tempDir();
      const file = join(dir, 'predictions.jsonl');
      const line = (id: string): string =>
        JSON.stringify({ instance_id: id, model_name_or_path: 'honest', model_patch: readFileSync(`examples/oracles/${id}.patch`, 'utf8') });
      writeFileSync(file, `${line('js-slugify')}\n${line('js-sortby')}\n`);
      const stateDir = join(dir, 'state');
      const { options } = gradeRunOptions({ input: loadRunInput('examples/tasks.yaml'), predictions: file, stateDir, sandbox: 'bwrap', concurrency: 1 });
      const first = await executeRun(options);
      const runId = first.summary.runId;
      // As a killed run leaves it: one attempt checkpointed, the other not.
      const checkpoint = join(first.runDir, RUN_FILES.checkpoint);
      writeFileSync(checkpoint, `${readFileSync(checkpoint, 'utf8').split('\n')[0]}\n`);
      // Resolving is exit 0: any other code is raised as an ExitError.
      await resumeCommand(runId, { out: stateDir }, captureIo().io);
      const { entries } = await readCheckpoint(first.runDir);
      expect(entries.map((e) => `${e.agent} ${e.taskId} ${e.verdict}`).sort()).toEqual(['honest js-slugify PASS', 'honest js-sortby PASS']);

      writeFileSync(file, `${line('js-slugify')}\n`);
      await expect(resumeCommand(runId, { out: stateDir }, captureIo().io)).rejects.toThrow(
        `run ${runId}: its predictions ${file} changed since the run started (fix: restore them, or grade them as a new run)`,
      );
    },
    attemptBudget(3 + 2),
  );

  it('stops on a prediction for a task the set does not have, naming the file and line, unless --skip-unknown', () => {
    const dir = tempDir();
    const file = join(dir, 'p.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ instance_id: 'js-slugify', model_name_or_path: 'm', model_patch: '' })}\n${JSON.stringify({ instance_id: 'js-slugfy', model_name_or_path: 'm', model_patch: '' })}\n`,
    );
    const input = loadRunInput('examples/tasks.yaml');
    expect(() => gradeRunOptions({ input, predictions: file, stateDir: dir, sandbox: 'bwrap' })).toThrow(
      `${file}:2: instance_id js-slugfy is not a task of examples/tasks.yaml (fix: did you mean js-slugify? use one of its task ids, or pass --skip-unknown to grade only the predictions it has tasks for)`,
    );
    const { options, skipped } = gradeRunOptions({ input, predictions: file, stateDir: dir, sandbox: 'bwrap', skipUnknown: true });
    expect(options.tasks.map((t) => t.id)).toEqual(['js-slugify']);
    expect(skipped.map((p) => p.where)).toEqual([`${file}:2`]);
  });

  it('reads a JSON array, a JSON object keyed by instance id, and a directory of <task-id>.patch files named after the directory or --model-name', () => {
    const dir = tempDir();
    const json = join(dir, 'p.json');
    writeFileSync(json, JSON.stringify([{ instance_id: 'a', model_name_or_path: 'm', model_patch: 'x' }]));
    expect(readPredictions(json)).toEqual([{ taskId: 'a', model: 'm', patch: 'x', where: `${json}[0]` }]);
    writeFileSync(json, JSON.stringify({ a: { instance_id: 'a', model_name_or_path: 'm', model_patch: 'x' } }));
    expect(readPredictions(json)).toEqual([{ taskId: 'a', model: 'm', patch: 'x', where: `${json}["a"]` }]);
    const patches = join(dir, 'my-model');
    mkdirSync(patches);
    writeFileSync(join(patches, 'js-slugify.patch'), 'p');
    expect(readPredictions(patches).map((p) => [p.taskId, p.model])).toEqual([['js-slugify', 'my-model']]);
    expect(readPredictions(patches, { modelName: 'other' }).map((p) => p.model)).toEqual(['other']);
    writeFileSync(json, '{"instance_id": "a"}\n');
    expect(() => readPredictions(json)).toThrow(`${json}:1: model_patch is missing (fix: the unified diff, "" for none)`);
  });

  it('refuses a model name that is a reference agent, holds a control character or runs past 200 characters', () => {
    const dir = tempDir();
    const file = join(dir, 'p.jsonl');
    const named = (model: string): string => {
      writeFileSync(file, `${JSON.stringify({ instance_id: 'a', model_name_or_path: model, model_patch: '' })}\n`);
      return file;
    };
    expect(() => readPredictions(named('oracle'))).toThrow(
      `${file}:1: model_name_or_path "oracle" is a reference agent's name, which would mix these patches with its runs (fix: rename the model in the predictions, or pass --model-name)`,
    );
    expect(() => readPredictions(named('evil\nname'))).toThrow(`${file}:1: model_name_or_path "evil\\nname" holds a control character`);
    expect(() => readPredictions(named('m'.repeat(201)))).toThrow(`${file}:1: model_name_or_path is 201 characters, over 200`);
    expect(readPredictions(named('org/model-v2 (beta)')).map((p) => p.model)).toEqual(['org/model-v2 (beta)']);
    const nop = join(dir, 'nop');
    mkdirSync(nop);
    writeFileSync(join(nop, 'a.patch'), '');
    expect(() => readPredictions(nop)).toThrow(`--predictions ${nop}: the directory's name "nop" is a reference agent's name`);
    expect(readPredictions(nop, { modelName: 'mine' }).map((p) => p.model)).toEqual(['mine']);
  });
});
