import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_TEST_PATHS } from '../../domain/config/index.js';
import { InputError } from '../../core/errors.js';
import { matcher } from '../../domain/evidence/index.js';
import { nearestId } from '../../core/format/index.js';
import { dockerfileBaseImages } from './field-accounting.js';
import { prepareOutputDir, writeFileInside, writeTaskSet, type ImportResult, type SkippedTask } from './output.js';
import { unmatchableIds, type UnmatchableId } from './swe-bench-ids.js';
import { parseInstances, type LocatedInstance, type SweBenchInstance } from './swe-bench-instance.js';
import { checkPatchPaths, crucibleTestId } from './swe-bench-patch.js';

const run = promisify(execFile);

/** Where the imported tasks run: SWE-bench's per-instance image, the host toolchain, or a Dockerfile of yours. */
export type SweBenchEnvironment = { kind: 'image' } | { kind: 'none' } | { kind: 'dockerfile'; file: string };

export interface SweBenchImportOptions {
  /** The instances file: JSON Lines, or a JSON array. */
  file: string;
  /** The output directory. */
  out: string;
  /** Only these instance ids. */
  ids?: readonly string[];
  /** A directory of local git mirrors named `<owner>__<name>`. */
  repos?: string;
  /** Write into a non-empty output directory. */
  force?: boolean;
  /** Default: SWE-bench's published instance image. */
  environment?: SweBenchEnvironment;
  /** Refuse an instance with a test id that can never match, instead of importing it without that id. */
  strict?: boolean;
}

/** The published fields the task does not use; kept in `source/<id>.json` and named in the note. */
const KEPT_FIELDS = ['hints_text', 'created_at', 'environment_setup_commit'] as const;

const MAX_INSTANCES_BYTES = 512 * 1024 * 1024;

/**
 * `crucible import swe-bench`: one task per instance. The repo is the instance's repo at
 * `base_commit`; the instruction its problem statement; the oracle its gold patch. The test patch
 * is applied by the test command itself, in the copy the tests run in, at the baseline and after
 * the agent, exactly when SWE-bench's harness applies it: the agent never sees it.
 */
export async function importSweBench(options: SweBenchImportOptions): Promise<ImportResult> {
  const text = await readInstancesFile(options.file);
  const all = parseInstances(text, options.file);
  const byId = new Map<string, LocatedInstance>();
  for (const located of all) {
    const id = located.instance.instance_id;
    if (byId.has(id)) throw new InputError(`${located.where}: instance ${id} appears twice (fix: keep one)`);
    byId.set(id, located);
  }
  const selected = selectInstances(byId, options.ids);
  const notes = new Map<string, string[]>();
  const note = (id: string, text: string): void => void notes.set(id, [...(notes.get(id) ?? []), text]);
  const skipped: SkippedTask[] = [];
  const usable: LocatedInstance[] = [];
  for (const located of selected) {
    const { instance, where } = located;
    const unsupported = instance.FAIL_TO_PASS.concat(instance.PASS_TO_PASS).find((id) => crucibleTestId(id) === undefined);
    if (unsupported !== undefined) {
      const why = `test id ${JSON.stringify(unsupported)} is not a pytest node id (its repo runs its own test runner, which writes no JUnit report)`;
      if (options.ids !== undefined) throw new InputError(`${where}: ${instance.instance_id}: ${why} (fix: leave it out of --ids)`);
      skipped.push({ source: where, id: instance.instance_id, reason: why });
      continue;
    }
    const bad = unmatchableIds(instance.FAIL_TO_PASS, instance.PASS_TO_PASS);
    if (bad.length > 0 && options.strict === true) {
      const first = bad[0] as UnmatchableId;
      throw new InputError(
        `${where}: ${instance.instance_id}: ${bad.length} test id${bad.length === 1 ? '' : 's'} can never match, first ${first.field} ${JSON.stringify(first.id)}, which ${first.problem} (fix: correct or remove ${bad.length === 1 ? 'it' : 'them'} in the record, or import without --strict, which leaves them out)`,
      );
    }
    const dropped = new Set(bad.map((b) => `${b.field}\0${b.id}`));
    const keep = (field: UnmatchableId['field'], ids: string[]): string[] => ids.filter((id) => !dropped.has(`${field}\0${id}`));
    const failToPass = keep('FAIL_TO_PASS', instance.FAIL_TO_PASS);
    if (failToPass.length === 0) {
      skipped.push({ source: where, id: instance.instance_id, reason: `no FAIL_TO_PASS id can match (${bad[0]?.id ?? ''} ${bad[0]?.problem ?? ''})` });
      continue;
    }
    if (bad.length > 0) {
      const shown = bad.slice(0, 3).map((b) => `${b.field} ${JSON.stringify(b.id)} ${b.problem}`);
      note(
        instance.instance_id,
        `left out ${bad.length} test id${bad.length === 1 ? '' : 's'} that can never match: ${shown.join('; ')}${bad.length > 3 ? `; and ${bad.length - 3} more` : ''} (fix: correct them in the record and add them to tests.fail_to_pass / pass_to_pass; --strict refuses such a record)`,
      );
    }
    usable.push({ ...located, instance: { ...instance, FAIL_TO_PASS: failToPass, PASS_TO_PASS: keep('PASS_TO_PASS', instance.PASS_TO_PASS) } });
  }
  if (usable.length === 0)
    throw new InputError(`${options.file}: no instance can be imported (${skipped[0] ? `${skipped[0].id}: ${skipped[0].reason}` : 'none selected'})`);
  for (const { where, instance } of usable) {
    checkPatchPaths(instance.patch, `${where}: ${instance.instance_id}: patch`);
    checkPatchPaths(instance.test_patch, `${where}: ${instance.instance_id}: test_patch`);
  }
  const repoUrls = new Map<string, string>();
  for (const { where, instance } of usable) repoUrls.set(instance.instance_id, await repoUrl(instance, where, options.repos));

  const root = await prepareOutputDir(options.out, options.force === true);
  const environment = options.environment ?? { kind: 'image' };
  const defaults: Record<string, unknown> = {};
  if (environment.kind === 'dockerfile') {
    const dockerfile = await readFile(environment.file).catch(() => {
      throw new InputError(`--dockerfile ${environment.file}: cannot be read (fix: name an existing Dockerfile)`);
    });
    await writeFileInside(root, 'env/Dockerfile', dockerfile, 'Dockerfile');
    defaults.environment = { dockerfile: 'env/Dockerfile' };
  }
  const tasks: Array<Record<string, unknown>> = [];
  for (const { instance, extra } of usable) {
    const id = instance.instance_id;
    const kept: Record<string, unknown> = { ...extra };
    for (const field of KEPT_FIELDS) if (instance[field] !== undefined) kept[field] = instance[field];
    if (Object.keys(kept).length > 0) {
      await writeFileInside(root, `source/${id}.json`, `${JSON.stringify(kept, null, 2)}\n`, `${id}: source`);
      note(id, `not used by Crucible (kept in source/${id}.json): ${Object.keys(kept).join(', ')}`);
    }
    await writeFileInside(root, `oracle/${id}.patch`, withFinalNewline(instance.patch), `${id}: patch`);
    await writeFileInside(root, `instructions/${id}.md`, withFinalNewline(instance.problem_statement), `${id}: problem_statement`);
    tasks.push(sweBenchTask(instance, repoUrls.get(id) as string, environment));
  }
  const taskSetFile = await writeTaskSet(root, { ...(Object.keys(defaults).length > 0 ? { defaults } : {}), tasks }, [
    `Imported from ${options.file} by crucible import swe-bench (${tasks.length} instance${tasks.length === 1 ? '' : 's'}).`,
    "Each test command applies the instance's test_patch in the copy the tests run in, as SWE-bench does at evaluation.",
    'Check it: crucible validate tasks.yaml' + (environment.kind === 'none' ? '' : ' --sandbox docker'),
  ]);
  return {
    taskSetFile,
    taskIds: tasks.map((t) => t.id as string),
    // One note per task, in the order the tasks are written.
    notes: tasks.flatMap((t) => {
      const lines = notes.get(t.id as string);
      return lines === undefined ? [] : [`${String(t.id)}: ${lines.join('; ')}`];
    }),
    skipped,
    needs: await environmentNeeds(environment, usable),
    ...(environment.kind === 'none' ? {} : { sandbox: 'docker' as const }),
  };
}

/** What the user must supply before the imported tasks run. */
async function environmentNeeds(environment: SweBenchEnvironment, usable: readonly LocatedInstance[]): Promise<string[]> {
  if (environment.kind === 'image')
    return usable.map(
      ({ instance }) =>
        `${instance.instance_id}: SWE-bench's image ${sweBenchImage(instance.instance_id)} (pulled when missing; run with --sandbox docker where it can be pulled, or docker load it)`,
    );
  if (environment.kind === 'dockerfile') {
    const bases = dockerfileBaseImages(await readFile(environment.file, 'utf8'));
    return [
      `every task: the image built from ${environment.file}; its base image${bases.length === 1 ? '' : 's'} ${bases.join(', ') || '(none named)'} must be local or pullable`,
    ];
  }
  return ["every task: python3 with pytest and each repo's test dependencies on the host (--environment none runs the tests with the host toolchain)"];
}

async function readInstancesFile(file: string): Promise<string> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined || !info.isFile()) throw new InputError(`${file}: no such file (fix: the SWE-bench instances, .jsonl or .json)`);
  if (info.size > MAX_INSTANCES_BYTES) throw new InputError(`${file}: larger than 512 MiB (fix: select instances into a smaller file)`);
  return readFile(file, 'utf8');
}

function selectInstances(byId: ReadonlyMap<string, LocatedInstance>, ids: readonly string[] | undefined): LocatedInstance[] {
  if (ids === undefined) return [...byId.values()];
  if (ids.length === 0) throw new InputError('--ids: empty (fix: a comma-separated list of instance ids)');
  return [...new Set(ids)].map((id) => {
    const located = byId.get(id);
    if (located !== undefined) return located;
    const near = nearestId(id, byId.keys());
    throw new InputError(`--ids: no instance ${id} in the file${near === undefined ? '' : ` (fix: did you mean ${near}?)`}`);
  });
}

/** The git source of an instance: the local mirror `<repos>/<owner>__<name>` when --repos is given, else GitHub. */
async function repoUrl(instance: SweBenchInstance, where: string, repos: string | undefined): Promise<string> {
  if (repos === undefined) return `https://github.com/${instance.repo}.git`;
  const name = instance.repo.replace('/', '__');
  const mirror = resolve(repos, name);
  const info = await stat(mirror).catch(() => undefined);
  if (info === undefined || !info.isDirectory())
    throw new InputError(
      `--repos ${repos}: no mirror ${name} for ${instance.instance_id} (fix: git clone --mirror https://github.com/${instance.repo}.git ${repos}/${name})`,
    );
  try {
    await run('git', ['-C', mirror, 'cat-file', '-e', `${instance.base_commit}^{commit}`]);
  } catch {
    throw new InputError(`${where}: ${instance.instance_id}: base_commit ${instance.base_commit} is not in ${mirror} (fix: git -C ${mirror} fetch)`);
  }
  return mirror;
}

/** One instance as a task, in the task-set file's form. */
export function sweBenchTask(instance: SweBenchInstance, git: string, environment: SweBenchEnvironment): Record<string, unknown> {
  const id = instance.instance_id;
  const testFiles = checkPatchPaths(instance.test_patch, `${id}: test_patch`);
  const isDefaultTestPath = matcher(DEFAULT_TEST_PATHS);
  const extraTestPaths = testFiles.filter((path) => !isDefaultTestPath(path));
  const tags = ['swe-bench', ...(instance.version ? [`version-${instance.version}`] : [])];
  return {
    id,
    repo: { git, commit: instance.base_commit },
    repo_key: `github.com/${instance.repo}`,
    instruction_file: `instructions/${id}.md`,
    tests: {
      command: testCommand(
        instance.test_patch,
        testFiles.filter((path) => path.endsWith('.py')),
      ),
      fail_to_pass: instance.FAIL_TO_PASS.map((t) => crucibleTestId(t) as string),
      pass_to_pass: instance.PASS_TO_PASS.map((t) => crucibleTestId(t) as string),
      ...(extraTestPaths.length > 0 ? { test_paths: [...DEFAULT_TEST_PATHS, ...extraTestPaths] } : {}),
    },
    oracle: { patch: `oracle/${id}.patch` },
    ...(environment.kind === 'image' ? { environment: { image: sweBenchImage(id), pull: 'missing', platform: 'linux/amd64' } } : {}),
    metadata: { category: instance.repo, ...(instance.difficulty !== undefined ? { difficulty: instance.difficulty } : {}), tags },
  };
}

/** SWE-bench's published evaluation image of an instance (Docker Hub spells `__` as `_1776_`). */
export function sweBenchImage(instanceId: string): string {
  return `swebench/sweb.eval.x86_64.${instanceId.replace(/__/g, '_1776_').toLowerCase()}:latest`;
}

/**
 * The test command: apply the test patch (held in the command, which the agent never sees), then
 * run pytest on the files it touches, writing JUnit where Crucible reads it. `--rootdir=.` pins
 * the ids to repo-relative paths. In SWE-bench's images the tests' interpreter is the conda env
 * `testbed`; elsewhere python3 on PATH.
 */
export function testCommand(testPatch: string, testFiles: readonly string[]): string {
  let delimiter = 'CRUCIBLE_TEST_PATCH';
  while (testPatch.split('\n').includes(delimiter)) delimiter += '_';
  const files = testFiles.map(shellQuote).join(' ');
  return [
    'if [ -d /opt/miniconda3/envs/testbed/bin ]; then PATH="/opt/miniconda3/envs/testbed/bin:$PATH"; fi',
    `GIT_CEILING_DIRECTORIES="$(dirname "$PWD")" git apply --whitespace=nowarn <<'${delimiter}' || { echo 'crucible: the SWE-bench test_patch does not apply' >&2; exit 3; }`,
    `${withFinalNewline(testPatch)}${delimiter}`,
    `python3 -m pytest -p no:cacheprovider --rootdir=. -rA --junitxml="$CRUCIBLE_JUNIT"${files ? ` ${files}` : ''}`,
    '',
  ].join('\n');
}

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
