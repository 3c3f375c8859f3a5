/**
 * `crucible import harbor`: Harbor task directories (task.toml, instruction.md, environment/,
 * solution/solve.sh, tests/test.sh) and Terminal-Bench's older layout (task.yaml, Dockerfile,
 * solution.sh, run-tests.sh, tests/) turned into one Crucible task set. docs/tasks.md says what
 * becomes what.
 *
 * The task directories are untrusted: every file is read without following a symlink (a symlink
 * anywhere in what is imported is refused), names come from directory listings and are checked
 * again by the output helpers, and nothing is written outside the output directory.
 */
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { basename, join, posix, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InputError } from '../../core/errors.js';
import { dockerfileBaseImages, unmappedFields } from './field-accounting.js';
import { prepareOutputDir, replaceDirInside, writeFileInside, writeTaskSet, type ImportResult, type SkippedTask } from './output.js';
import { parseTaskToml, type TomlTable, type TomlValue } from './task-toml.js';

export interface HarborImportOptions {
  /** Task directories, Harbor or Terminal-Bench layout. */
  dirs: readonly string[];
  out: string;
  force?: boolean;
}

/** Where Harbor's verifier writes its reward; rewritten to the directory Crucible reads it from. */
const HARBOR_REWARD_DIR = '/logs/verifier';

/** Where Harbor's verifier finds its files (tests/) in the container. */
/** Where both layouts' verifiers find their files: Harbor mounts tests/ there, Terminal-Bench copies tests/ and run-tests.sh there. */
const TESTS_PATH = '/tests';

/** Above this, a file of a task is not what a task file should be. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

interface ImportedTask {
  /** The task as written to tasks.yaml (snake_case). */
  doc: Record<string, unknown>;
  notes: string[];
  /** What the user must still supply for it to run (an image to build or pull). */
  needs: string[];
}

export async function importHarbor(options: HarborImportOptions): Promise<ImportResult> {
  if (options.dirs.length === 0) throw new InputError('crucible import harbor: no task directory given (fix: pass one or more task directories)');
  // Every input is read and checked before anything is written: a bad task leaves no half output.
  const read = await Promise.all(options.dirs.map((dir) => readTaskDir(dir)));
  const skipped: SkippedTask[] = read.filter((r): r is SkippedTask => 'reason' in r);
  const sources = read.filter((r): r is TaskSource => !('reason' in r));
  if (sources.length === 0)
    throw new InputError(`crucible import harbor: no task can be imported (${skipped.map((s) => `${s.source}: ${s.reason}`).join('; ')})`);
  const ids = new Set<string>();
  for (const source of sources) {
    if (ids.has(source.id)) throw new InputError(`${source.dir}: task id ${source.id} is imported twice (fix: import each task directory once)`);
    ids.add(source.id);
  }
  const root = await prepareOutputDir(options.out, options.force === true);
  const tasks: ImportedTask[] = [];
  for (const source of sources) tasks.push(await writeTask(root, source));
  const file = await writeTaskSet(root, { tasks: tasks.map((t) => t.doc) }, [
    `Imported by crucible import harbor from ${sources.length} task director${sources.length === 1 ? 'y' : 'ies'}.`,
    'Runs in Docker: crucible validate tasks.yaml --sandbox docker',
  ]);
  return {
    taskSetFile: file,
    taskIds: sources.map((s) => s.id),
    notes: tasks.flatMap((t) => t.notes),
    skipped,
    needs: [...new Set(tasks.flatMap((t) => t.needs))],
    // Every Harbor task has an image or a Dockerfile.
    sandbox: 'docker',
  };
}

/** One task directory, read into memory: its files by relative path, and its parsed configuration. */
interface TaskSource {
  dir: string;
  id: string;
  layout: 'harbor' | 'terminal-bench';
  instruction: string;
  config: Config;
  /** Files of the environment (Dockerfile and its context), relative to the context. */
  environment: Map<string, Buffer>;
  solution?: { script: string; files: Map<string, Buffer> };
  /** The verifier's files, relative to the task's `tests/` directory. */
  tests: Map<string, Buffer>;
  /** Terminal-Bench's run-tests.sh, when there is one. */
  runTests?: string;
  /** The task's own configuration file, copied verbatim beside the import (what is not mapped stays there). */
  configFile: { name: string; text: string };
}

interface Config {
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
  verifierEnv: Record<string, string>;
  cpus?: number;
  memory?: string;
  storage?: string;
  image?: string;
  /** Harbor 1.1's `environment.workdir`; absent: the image's WORKDIR. */
  workdir?: string;
  /** Harbor's `environment.allow_internet`: the verifier gets the host's network (the agent never does). */
  allowInternet?: boolean;
  metadata: { difficulty?: string; category?: string; tags: string[] };
  /** Fields of the configuration Crucible does not use, by dotted path: named in the task's note. */
  unmapped: string[];
  /** Files of the task directory that are not imported, with why. */
  ignoredFiles: string[];
}

async function readTaskDir(dir: string): Promise<TaskSource | SkippedTask> {
  const abs = resolve(dir);
  const stat = await lstat(abs).catch(() => undefined);
  if (stat === undefined || !stat.isDirectory()) throw new InputError(`${dir}: not a task directory (fix: pass a directory holding task.toml or task.yaml)`);
  const id = taskId(basename(await realpath(abs)), dir);
  const has = async (name: string): Promise<boolean> => (await lstat(join(abs, name)).catch(() => undefined)) !== undefined;
  if (await has('task.toml')) return readHarbor(abs, dir, id);
  if (await has('task.yaml')) return readTerminalBench(abs, dir, id);
  throw new InputError(`${dir}: neither task.toml (Harbor) nor task.yaml (Terminal-Bench) found (fix: pass the task's own directory)`);
}

async function readHarbor(abs: string, dir: string, id: string): Promise<TaskSource | SkippedTask> {
  const budget = new ReadBudget(dir);
  const tomlText = await readText(abs, 'task.toml', dir, "Harbor's task configuration", budget);
  const toml = parseTaskToml(tomlText, join(dir, 'task.toml'));
  // Harbor 1.1's multi-step tasks run several instructions in one container, each step starting
  // from the state the last left; a Crucible task is one instruction from one baseline.
  const steps = toml.steps;
  if (Array.isArray(steps) && steps.length > 0)
    return {
      source: dir,
      id,
      reason: `a multi-step task (${steps.length} [[steps]] in task.toml): each step starts from the container state the step before left, which one Crucible task (one instruction, one baseline) cannot express (fix: import a single-step task, or write each step as its own task directory)`,
    };
  const instruction = await readText(abs, 'instruction.md', dir, 'the task prompt Harbor reads', budget);
  const config = harborConfig(toml, join(dir, 'task.toml'));
  const environment = (await hasDir(abs, 'environment', dir)) ? await readTree(abs, 'environment', dir, budget) : new Map<string, Buffer>();
  if (!environment.has('Dockerfile') && config.image === undefined)
    throw new InputError(`${dir}: no environment/Dockerfile and no [environment] docker_image in task.toml (fix: add one of them)`);
  if (!(await hasDir(abs, 'tests', dir))) throw new InputError(`${dir}: no tests/ directory (fix: add tests/test.sh, the verifier that writes the reward)`);
  const tests = await readTree(abs, 'tests', dir, budget);
  if (!tests.has('test.sh')) throw new InputError(`${join(dir, 'tests')}: no test.sh (fix: add the verifier script tests/test.sh)`);
  let solution: TaskSource['solution'];
  if (await hasDir(abs, 'solution', dir)) {
    const files = await readTree(abs, 'solution', dir, budget);
    const script = files.get('solve.sh');
    if (script) solution = { script: script.toString('utf8'), files };
  }
  // Whatever else the directory holds is not part of a Harbor task Crucible runs: named, not dropped.
  for (const name of (await listDir(abs, dir)).sort())
    if (!HARBOR_ENTRIES.has(name)) config.ignoredFiles.push(`${name}${(await isDir(abs, name)) ? '/' : ''} (not a part of a Harbor task that Crucible reads)`);
  return {
    dir,
    id,
    layout: 'harbor',
    instruction,
    config,
    environment,
    tests,
    configFile: { name: 'task.toml', text: tomlText },
    ...(solution ? { solution } : {}),
  };
}

async function readTerminalBench(abs: string, dir: string, id: string): Promise<TaskSource> {
  const budget = new ReadBudget(dir);
  const yamlText = await readText(abs, 'task.yaml', dir, "Terminal-Bench's task file", budget);
  let yaml: unknown;
  try {
    yaml = parseYaml(yamlText);
  } catch (error) {
    throw new InputError(
      `${join(dir, 'task.yaml')}: not valid YAML: ${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''} (fix: make it valid YAML)`,
    );
  }
  const where = join(dir, 'task.yaml');
  if (!isRecord(yaml)) throw new InputError(`${where}: expected a mapping with an instruction (fix: see Terminal-Bench's task.yaml format)`);
  const { instruction, unmapped: unmappedDescriptions } = terminalBenchInstruction(yaml, where);
  const config: Config = {
    ...timeouts(yaml.max_agent_timeout_sec, yaml.max_test_timeout_sec, where, ['max_agent_timeout_sec', 'max_test_timeout_sec']),
    verifierEnv: {},
    metadata: metadataOf(yaml, where),
    unmapped: [...Object.keys(yaml).filter((k) => !TB_MAPPED.has(k)), ...unmappedDescriptions],
    ignoredFiles: [],
  };
  const environment = new Map<string, Buffer>();
  const dockerfile = await readBytes(abs, 'Dockerfile', dir, budget);
  if (dockerfile === undefined) throw new InputError(`${dir}: no Dockerfile (fix: Terminal-Bench tasks build from the Dockerfile next to task.yaml)`);
  environment.set('Dockerfile', dockerfile);
  // The rest of the directory is the build context, minus what the agent must never see.
  for (const name of await listDir(abs, dir)) {
    if (TB_NOT_CONTEXT.has(name) || name === 'Dockerfile') continue;
    if (await isDir(abs, name)) for (const [rel, bytes] of await readTree(abs, name, dir, budget)) environment.set(`${name}/${rel}`, bytes);
    else environment.set(name, (await readBytes(abs, name, dir, budget)) as Buffer);
  }
  const tests = (await hasDir(abs, 'tests', dir)) ? await readTree(abs, 'tests', dir, budget) : new Map<string, Buffer>();
  const runTests = (await readBytes(abs, 'run-tests.sh', dir, budget))?.toString('utf8');
  if (runTests === undefined && tests.size === 0) throw new InputError(`${dir}: no run-tests.sh and no tests/ (fix: add the tests that decide the task)`);
  const script = (await readBytes(abs, 'solution.sh', dir, budget))?.toString('utf8');
  if (await has(abs, 'solution.yaml')) config.ignoredFiles.push('solution.yaml (only solution.sh is imported)');
  if (await has(abs, 'docker-compose.yaml')) config.ignoredFiles.push('docker-compose.yaml (the Dockerfile is built alone)');
  return {
    dir,
    id,
    layout: 'terminal-bench',
    instruction,
    config,
    environment,
    tests,
    configFile: { name: 'task.yaml', text: yamlText },
    ...(runTests !== undefined ? { runTests } : {}),
    ...(script !== undefined ? { solution: { script, files: new Map() } } : {}),
  };
}

/**
 * The prompt of a Terminal-Bench task: `instruction`, or the older `descriptions` list of
 * `{ key, description }` variants, of which `base` is the one Terminal-Bench runs by default; the
 * other variants are named as not imported.
 */
function terminalBenchInstruction(yaml: Record<string, unknown>, where: string): { instruction: string; unmapped: string[] } {
  if (typeof yaml.instruction === 'string' && yaml.instruction.trim() !== '') return { instruction: yaml.instruction, unmapped: [] };
  const descriptions = yaml.descriptions;
  if (typeof descriptions === 'string' && descriptions.trim() !== '') return { instruction: descriptions, unmapped: [] };
  if (Array.isArray(descriptions)) {
    const variants = descriptions.filter(isRecord);
    const base = variants.find((d) => d.key === 'base') ?? (variants.length === 1 ? variants[0] : undefined);
    if (base !== undefined && typeof base.description === 'string' && base.description.trim() !== '') {
      const others = variants.filter((d) => d !== base).map((d) => `descriptions[key=${String(d.key)}]`);
      return { instruction: base.description, unmapped: others };
    }
    throw new InputError(`${where}: descriptions: no entry with key: base and a description (fix: add one, or write instruction: |)`);
  }
  throw new InputError(`${where}: instruction: missing or not text (fix: add instruction: |, the task prompt)`);
}

/** The entries of a Harbor task directory the importer reads. */
const HARBOR_ENTRIES = new Set(['task.toml', 'instruction.md', 'environment', 'solution', 'tests']);

/** What task.yaml fields become; every other key (author_*, parser_name, …) is named in the task's note. */
const TB_MAPPED = new Set(['instruction', 'descriptions', 'difficulty', 'category', 'tags', 'max_agent_timeout_sec', 'max_test_timeout_sec']);
const TB_NOT_CONTEXT = new Set(['task.yaml', 'tests', 'solution.sh', 'solution.yaml', 'run-tests.sh', 'docker-compose.yaml', '.git']);

/** task.toml's sections as Crucible's fields; every other field is listed in `unmapped`. */
function harborConfig(toml: TomlTable, where: string): Config {
  const section = (name: string): TomlTable => {
    const value = toml[name];
    if (value === undefined) return {};
    if (!isRecord(value)) throw new InputError(`${where}: [${name}] is not a table (fix: make it a [${name}] section)`);
    return value as TomlTable;
  };
  const agent = section('agent');
  const verifier = section('verifier');
  const env = section('environment');
  const verifierEnv: Record<string, string> = {};
  if (verifier.env !== undefined) {
    if (!isRecord(verifier.env)) throw new InputError(`${where}: verifier.env is not a table (fix: env = { NAME = "value" })`);
    for (const [name, value] of Object.entries(verifier.env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || typeof value !== 'string')
        throw new InputError(`${where}: verifier.env.${name}: expected a variable name and a string value (fix: NAME = "value")`);
      verifierEnv[name] = value;
    }
  }
  const cpus = optionalNumber(env.cpus, where, 'environment.cpus');
  const memoryMb = optionalNumber(env.memory_mb, where, 'environment.memory_mb');
  const storageMb = optionalNumber(env.storage_mb, where, 'environment.storage_mb');
  const memory = memoryMb !== undefined ? `${memoryMb}m` : sizeText(env.memory, where, 'environment.memory');
  const storage = storageMb !== undefined ? `${storageMb}m` : sizeText(env.storage, where, 'environment.storage');
  const image = env.docker_image;
  if (image !== undefined && typeof image !== 'string')
    throw new InputError(`${where}: environment.docker_image is not a string (fix: docker_image = "name:tag")`);
  const workdir = env.workdir;
  if (workdir !== undefined && (typeof workdir !== 'string' || !/^\/[^\0]*[^/]$/.test(workdir) || workdir.split('/').some((p) => p === '..')))
    throw new InputError(`${where}: environment.workdir: expected an absolute path like "/app", got ${JSON.stringify(workdir)} (fix: workdir = "/app")`);
  const allowInternet = env.allow_internet;
  if (allowInternet !== undefined && typeof allowInternet !== 'boolean')
    throw new InputError(`${where}: environment.allow_internet: expected true or false (fix: allow_internet = true)`);
  return {
    ...timeouts(agent.timeout_sec, verifier.timeout_sec, where, ['agent.timeout_sec', 'verifier.timeout_sec']),
    verifierEnv,
    ...(workdir !== undefined ? { workdir } : {}),
    ...(allowInternet !== undefined ? { allowInternet } : {}),
    ...(cpus !== undefined ? { cpus } : {}),
    ...(memory !== undefined ? { memory } : {}),
    ...(storage !== undefined ? { storage } : {}),
    ...(image !== undefined ? { image } : {}),
    metadata: metadataWithKeywords(metadataOf(section('metadata'), where), section('task').keywords, where),
    unmapped: unmappedFields(toml, HARBOR_MAPPED),
    ignoredFiles: [],
  };
}

/** The task.toml fields Crucible maps (1.0 and 1.1); every other one is named in the task's note. */
const HARBOR_MAPPED = new Set([
  'agent.timeout_sec',
  'verifier.timeout_sec',
  'verifier.env',
  'environment.cpus',
  'environment.memory_mb',
  'environment.memory',
  'environment.storage_mb',
  'environment.storage',
  'environment.docker_image',
  'environment.workdir',
  'environment.allow_internet',
  'metadata.difficulty',
  'metadata.category',
  'metadata.tags',
  'task.keywords',
]);

/** Harbor 1.1's `[task] keywords` join the tags. */
function metadataWithKeywords(meta: Config['metadata'], keywords: TomlValue | undefined, where: string): Config['metadata'] {
  if (keywords === undefined) return meta;
  if (!(Array.isArray(keywords) && keywords.every((k) => typeof k === 'string')))
    throw new InputError(`${where}: task.keywords: expected a list of strings (fix: keywords = ["a", "b"])`);
  return { ...meta, tags: [...new Set([...meta.tags, ...keywords])] };
}

function timeouts(agent: unknown, verifier: unknown, where: string, names: [string, string]): Pick<Config, 'agentTimeoutSec' | 'verifierTimeoutSec'> {
  const a = optionalNumber(agent, where, names[0]);
  const v = optionalNumber(verifier, where, names[1]);
  return { ...(a !== undefined ? { agentTimeoutSec: a } : {}), ...(v !== undefined ? { verifierTimeoutSec: v } : {}) };
}

function optionalNumber(value: unknown, where: string, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new InputError(`${where}: ${name}: expected a positive number, got ${JSON.stringify(value)} (fix: e.g. ${name.split('.').pop() ?? name} = 600)`);
  return value;
}

/** Harbor's older `memory = "2G"` spelling, as a Crucible size. */
function sizeText(value: TomlValue | undefined, where: string, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+(?:\.\d+)?\s*[kmgKMG]?i?[bB]?$/.test(value.trim()))
    throw new InputError(`${where}: ${name}: expected a size like "2G", got ${JSON.stringify(value)} (fix: use ${name}_mb = 2048)`);
  return value.trim().toLowerCase();
}

function metadataOf(meta: Record<string, unknown>, where: string): Config['metadata'] {
  const text = (key: string): string | undefined => {
    const value = meta[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new InputError(`${where}: ${key}: expected text (fix: ${key} = "…")`);
    return value;
  };
  const tags = meta.tags;
  if (tags !== undefined && !(Array.isArray(tags) && tags.every((t) => typeof t === 'string')))
    throw new InputError(`${where}: tags: expected a list of strings (fix: tags = ["a", "b"])`);
  const difficulty = text('difficulty');
  const category = text('category');
  return { ...(difficulty ? { difficulty } : {}), ...(category ? { category } : {}), tags: (tags as string[] | undefined) ?? [] };
}

/** Writes one task's files under `<out>/<id>/` and returns its task-set entry. */
async function writeTask(root: string, t: TaskSource): Promise<ImportedTask> {
  const base = t.id;
  const notes: string[] = [];
  if (t.config.unmapped.length > 0) notes.push(`not used by Crucible (kept in ${base}/source/${t.configFile.name}): ${t.config.unmapped.join(', ')}`);
  for (const what of t.config.ignoredFiles) notes.push(`${what} is not imported`);
  const needs: string[] = [];
  await replaceDirInside(root, base, `task ${t.id}`);
  await writeFileInside(root, `${base}/source/${t.configFile.name}`, t.configFile.text, `task ${t.id}`);
  // The agent's workspace: Harbor tasks have no repository; the agent starts from an empty directory.
  await writeFileInside(root, `${base}/workspace/.gitkeep`, '', `task ${t.id}`);
  await writeFileInside(root, `${base}/instruction.md`, t.instruction, `task ${t.id}`);
  for (const [rel, bytes] of t.environment) await writeFileInside(root, `${base}/environment/${rel}`, bytes, `${t.dir}: environment`);
  for (const [rel, bytes] of t.tests) {
    const content = rel === 'test.sh' && t.layout === 'harbor' ? rewriteRewardPath(bytes.toString('utf8')) : bytes;
    await writeFileInside(root, `${base}/verifier/tests/${rel}`, content, `${t.dir}: tests`, 0o755);
  }
  if (t.runTests !== undefined) await writeFileInside(root, `${base}/verifier/tests/run-tests.sh`, t.runTests, `${t.dir}: run-tests.sh`, 0o755);
  if (t.solution) {
    for (const [rel, bytes] of t.solution.files) await writeFileInside(root, `${base}/solution/${rel}`, bytes, `${t.dir}: solution`);
    if (t.solution.files.size === 0) await writeFileInside(root, `${base}/solution/solve.sh`, t.solution.script, `${t.dir}: solution.sh`);
    if (t.solution.files.size > 1) notes.push(`the oracle runs solve.sh alone; the other files of solution/ are not in the workspace`);
  } else notes.push(`no solution script: crucible validate needs an oracle (add oracle.script)`);
  notes.push(mappedNote(t));
  if (t.layout === 'terminal-bench')
    notes.push(
      `Terminal-Bench gives its tests the network (run-tests.sh installs its tools): the verifier runs with the host's network (tests.network: host; set none to refuse); the agent still reaches only the model gateway`,
    );
  else if (t.config.allowInternet === true)
    notes.push(
      `environment.allow_internet = true: the verifier runs with the host's network (tests.network: host); the agent still reaches only the model gateway`,
    );

  const env: Record<string, unknown> = t.environment.has('Dockerfile') ? { dockerfile: `${base}/environment/Dockerfile` } : { image: t.config.image as string };
  if (t.environment.has('Dockerfile') && t.config.image !== undefined) notes.push(`environment.docker_image ignored: the Dockerfile is built instead`);
  const dockerfile = t.environment.get('Dockerfile');
  if (dockerfile !== undefined) {
    const bases = dockerfileBaseImages(dockerfile.toString('utf8'));
    needs.push(
      `${t.id}: the image is built from ${base}/environment/Dockerfile when the task runs; its base image${bases.length === 1 ? '' : 's'} ${bases.join(', ') || '(none named)'} must be local or pullable`,
    );
  } else needs.push(`${t.id}: the image ${t.config.image as string} must be local or pullable (docker pull ${t.config.image as string})`);
  if (t.config.cpus !== undefined) env.cpus = t.config.cpus;
  if (t.config.memory !== undefined) env.memory = t.config.memory;
  if (t.config.storage !== undefined) env.storage = t.config.storage;
  // Both layouts' tasks live in their image (/app): the agent and the verifier work there, on the image's files.
  env.workdir = t.config.workdir ?? 'image';

  const limits: Record<string, unknown> = {};
  if (t.config.agentTimeoutSec !== undefined) limits.agent_timeout = t.config.agentTimeoutSec;
  if (t.config.verifierTimeoutSec !== undefined) limits.test_timeout = t.config.verifierTimeoutSec;
  const metadata: Record<string, unknown> = { tags: [...t.config.metadata.tags, t.layout] };
  if (t.config.metadata.difficulty) metadata.difficulty = t.config.metadata.difficulty;
  if (t.config.metadata.category) metadata.category = t.config.metadata.category;

  const doc: Record<string, unknown> = {
    id: t.id,
    repo: { path: `${base}/workspace` },
    instruction_file: `${base}/instruction.md`,
    tests: {
      kind: 'reward',
      ...verifierRun(t),
      // The verifier sees its files at /tests, mounted read-only for its run alone, as both harnesses place them.
      files: `${base}/verifier/tests`,
      mount: TESTS_PATH,
      ...(t.config.allowInternet === true || t.layout === 'terminal-bench' ? { network: 'host' } : {}),
    },
    ...(t.solution ? { oracle: { script: `${base}/solution/solve.sh` } } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    environment: env,
    metadata,
  };
  // One note per task, naming everything of it that Crucible does not use as published.
  return { doc, notes: notes.length > 0 ? [`${t.id}: ${notes.join('; ')}`] : [], needs };
}

/**
 * How the verifier runs. Harbor: /tests/test.sh executed directly (its `#!` line picks the
 * interpreter, no shell is assumed), with TEST_DIR and the task's [verifier] env; it writes the
 * reward itself. Terminal-Bench: /tests/run-tests.sh run with bash, as its harness does (or pytest
 * over /tests), in the image's workdir, whose exit status is the result: 1 on success, else 0.
 * (Terminal-Bench reads the pytest summary the script prints; Crucible does not take a verdict
 * from printed text, and the scripts end with pytest's status.)
 */
function verifierRun(t: TaskSource): { exec: string[]; env: Record<string, string> } | { command: string } {
  if (t.layout === 'harbor') return { exec: [`${TESTS_PATH}/test.sh`], env: { ...t.config.verifierEnv, TEST_DIR: TESTS_PATH } };
  const vars = Object.entries(t.config.verifierEnv).map(([name, value]) => `${name}=${shellQuote(value)} `);
  const prefix = `${vars.join('')}TEST_DIR=${TESTS_PATH} `;
  const run = t.runTests !== undefined ? `bash ${TESTS_PATH}/run-tests.sh` : `python3 -m pytest -rA ${TESTS_PATH}`;
  return { command: `if ${prefix}${run}; then echo 1 > "$CRUCIBLE_REWARD"; else echo 0 > "$CRUCIBLE_REWARD"; fi` };
}

/** What the import made of the harness's way to run the task: said on every import, so nothing is assumed. */
function mappedNote(t: TaskSource): string {
  const solution = t.solution?.script.startsWith('#!')
    ? `${t.layout === 'harbor' ? 'solution/solve.sh' : 'solution.sh'} is executed by its #! line (${t.solution.script.split('\n')[0]?.slice(2).trim() ?? ''})`
    : t.solution
      ? `${t.layout === 'harbor' ? 'solution/solve.sh' : 'solution.sh'} has no #! line: bash runs it`
      : undefined;
  const verifier =
    t.layout === 'harbor'
      ? `tests/ is mounted read-only at ${TESTS_PATH} and ${TESTS_PATH}/test.sh is executed by its #! line with TEST_DIR=${TESTS_PATH}${Object.keys(t.config.verifierEnv).length > 0 ? ` and [verifier] env ${Object.keys(t.config.verifierEnv).join(', ')}` : ''}; ${HARBOR_REWARD_DIR} in test.sh is the reward directory $CRUCIBLE_REWARD_DIR`
      : `tests/ and run-tests.sh are mounted read-only at ${TESTS_PATH}; ${t.runTests !== undefined ? `bash ${TESTS_PATH}/run-tests.sh` : `pytest over ${TESTS_PATH}`} runs with TEST_DIR=${TESTS_PATH} and its exit status is the reward (0 passes)`;
  return `mapped: ${[solution, verifier].filter((x) => x !== undefined).join('; ')}`;
}

/**
 * Harbor's test.sh writes to /logs/verifier/reward.txt (or .json). That directory is rewritten to
 * `$CRUCIBLE_REWARD_DIR`, the fresh directory Crucible reads the reward from, which works under
 * every sandbox (bwrap and local have no /logs/verifier to bind).
 */
export function rewriteRewardPath(script: string): string {
  return script.split(HARBOR_REWARD_DIR).join('${CRUCIBLE_REWARD_DIR}');
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A Crucible id from a directory name: characters outside the id alphabet become `-`. */
function taskId(name: string, dir: string): string {
  const id = name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  if (id === '') throw new InputError(`${dir}: cannot make a task id from the directory name (fix: rename it with letters or digits)`);
  return id;
}

async function isDir(abs: string, rel: string): Promise<boolean> {
  const stat = await lstat(join(abs, rel)).catch(() => undefined);
  return stat?.isDirectory() === true;
}

/** Whether the task has the directory `rel`; a symlink in its place is refused, never followed or skipped. */
async function hasDir(abs: string, rel: string, dir: string): Promise<boolean> {
  const stat = await lstat(join(abs, rel)).catch(() => undefined);
  if (stat?.isSymbolicLink()) throw new InputError(`${join(dir, rel)}: is a symlink, which is never followed (fix: replace it with the directory itself)`);
  return stat?.isDirectory() === true;
}

async function has(abs: string, rel: string): Promise<boolean> {
  return (await lstat(join(abs, rel)).catch(() => undefined)) !== undefined;
}

async function readText(abs: string, rel: string, dir: string, what: string, budget: ReadBudget): Promise<string> {
  const bytes = await readBytes(abs, rel, dir, budget);
  if (bytes === undefined) throw new InputError(`${dir}: no ${rel} (fix: add ${rel}, ${what})`);
  return bytes.toString('utf8');
}

/** A regular file's bytes, or undefined when there is none; a symlink or anything else is refused. */
async function readBytes(abs: string, rel: string, dir: string, budget: ReadBudget): Promise<Buffer | undefined> {
  const path = join(abs, rel);
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) return undefined;
  if (stat.isSymbolicLink()) throw new InputError(`${join(dir, rel)}: is a symlink, which is never followed (fix: replace it with the file itself)`);
  if (!stat.isFile()) throw new InputError(`${join(dir, rel)}: not a regular file (fix: make it one)`);
  if (stat.size > MAX_FILE_BYTES) throw new InputError(`${join(dir, rel)}: larger than ${MAX_FILE_BYTES} bytes (fix: keep task files small)`);
  budget.take(stat.size);
  return readFile(path);
}

/** Every regular file under `abs/rel`, by path relative to it; symlinks and special files are refused. */
async function readTree(abs: string, rel: string, dir: string, budget: ReadBudget): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const walk = async (sub: string, depth: number): Promise<void> => {
    if (depth > MAX_TREE_DEPTH)
      throw new InputError(`${join(dir, rel, sub)}: directories nested deeper than ${MAX_TREE_DEPTH} levels (fix: a task's files nest a few levels)`);
    for (const name of (await listDir(join(abs, rel, sub), join(dir, rel, sub))).sort()) {
      const inner = sub === '' ? name : posix.join(sub, name);
      if (await isDir(join(abs, rel), inner)) {
        budget.take(0);
        await walk(inner, depth + 1);
      } else files.set(inner, (await readBytes(join(abs, rel), inner, join(dir, rel), budget)) as Buffer);
    }
  };
  await walk('', 1);
  return files;
}

/**
 * The names in a directory of the task. A name is read as bytes and must be UTF-8 without control
 * characters: one that is not could not be written under the same name, nor named in a task set
 * or a message, so it is refused, shown escaped (a newline as `\n`, a byte as `\xFF`).
 */
async function listDir(path: string, shown: string): Promise<string[]> {
  const names = await readdir(path, { encoding: 'buffer' });
  return names.map((raw) => {
    const name = raw.toString('utf8');
    // eslint-disable-next-line no-control-regex
    if (Buffer.from(name, 'utf8').equals(raw) && !/[\u0000-\u001f\u007f-\u009f]/.test(name)) return name;
    throw new InputError(
      `${join(shown, escapedName(raw))}: a name that is not UTF-8 text or holds a control character (fix: rename it with printable UTF-8 characters)`,
    );
  });
}

/** A name as bytes, printable: control characters and bytes outside UTF-8 as `\xNN`. */
function escapedName(raw: Buffer): string {
  let out = '';
  for (const ch of raw.toString('latin1')) {
    const code = ch.charCodeAt(0);
    out += code < 0x20 || code >= 0x7f ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}` : ch;
  }
  return out;
}

/** Above these, one task directory is not a task: refused before it is read further, so a huge tree costs no more than the caps. */
const MAX_TASK_FILES = 1000;
const MAX_TASK_BYTES = 256 * 1024 * 1024;
const MAX_TREE_DEPTH = 16;

/** What one task directory has read so far (files and directories, bytes), against MAX_TASK_FILES and MAX_TASK_BYTES. */
class ReadBudget {
  private files = 0;
  private bytes = 0;
  constructor(private readonly dir: string) {}

  take(size: number): void {
    this.files += 1;
    this.bytes += size;
    if (this.files > MAX_TASK_FILES)
      throw new InputError(
        `${this.dir}: more than ${MAX_TASK_FILES} files and directories (fix: a task holds its Dockerfile, tests and solution; leave data out or fetch it in the Dockerfile)`,
      );
    if (this.bytes > MAX_TASK_BYTES)
      throw new InputError(
        `${this.dir}: more than ${MAX_TASK_BYTES} bytes in all (fix: a task holds its Dockerfile, tests and solution; fetch large data in the Dockerfile)`,
      );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
