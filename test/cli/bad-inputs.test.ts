import { existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src/infra/store/index.js';
import { runCli as runInProcess } from '../helpers/cli.js';

/**
 * A corpus of inputs a user gets wrong, run through the CLI program in-process. Each must end in exit 2 with one
 * `error …` line that carries a fix, never a stack trace or "this is a bug". Every case fails while
 * loading or parsing, before any agent runs, so the whole corpus takes seconds.
 */

/** A valid task in the task-set format, with `extra` lines appended under it (indented 4). */
function task(extra = '', id = 't1'): string {
  return [
    `  - id: ${id}`,
    '    repo: { path: repo }',
    '    instruction: fix it',
    '    tests:',
    '      command: sh check.sh',
    '      fail_to_pass: [check::fixed]',
    extra,
  ]
    .filter(Boolean)
    .join('\n');
}

const tasks = (...lines: string[]): string => `tasks:\n${lines.join('\n')}\n`;

/** An alias bomb: ten levels, each ten aliases of the level below (10^10 nodes expanded). */
function aliasBomb(): string {
  const lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i <= 10; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\ntasks: [*l10]\n`;
}

interface BadInput {
  name: string;
  /** Files written into the case's directory before the command runs. */
  files?: Record<string, string | Buffer>;
  argv: string[];
  /** Extra environment (an API key, so that the flag after it is what gets checked). */
  env?: Record<string, string>;
  /** Something the message must say, beyond the common rules. */
  says?: RegExp;
}

const validate = (file = 'tasks.yaml'): string[] => ['validate', file, '--sandbox', 'local', '--out', 'state'];
const run = (...flags: string[]): string[] => ['run', 'tasks.yaml', '--agent', 'nop', '--sandbox', 'local', '--out', 'state', ...flags];
const taskFile = (text: string): Record<string, string> => ({ 'tasks.yaml': text });

const CORPUS: BadInput[] = [
  // The file as a whole.
  { name: 'empty file', files: taskFile(''), argv: validate(), says: /empty/ },
  { name: 'comments only', files: taskFile('# nothing here\n'), argv: validate(), says: /empty/ },
  { name: 'top-level scalar', files: taskFile('42\n'), argv: validate(), says: /tasks\.yaml:1:1: .*number/ },
  { name: 'top-level list', files: taskFile('- a\n- b\n'), argv: validate(), says: /tasks\.yaml:1:1: .*list/ },
  { name: 'YAML syntax error', files: taskFile('tasks: [\n  - id: x\n'), argv: validate(), says: /invalid YAML/ },
  { name: 'duplicate key', files: taskFile(`${tasks(task())}tasks: []\n`), argv: validate(), says: /invalid YAML/ },
  { name: 'alias bomb', files: taskFile(aliasBomb()), argv: validate(), says: /alias/ },
  { name: 'alias to an undefined anchor', files: taskFile('tasks: [*nope]\n'), argv: validate(), says: /alias|anchor/i },
  {
    name: 'non-UTF-8 file',
    files: { 'tasks.yaml': Buffer.concat([Buffer.from('tasks:\n  - id: caf'), Buffer.from([0xe9]), Buffer.from('\n')]) },
    argv: validate(),
    says: /tasks\.yaml:2: not valid UTF-8 \(byte 18\)/,
  },
  { name: 'binary file', files: { 'tasks.yaml': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00]) }, argv: validate(), says: /binary/ },
  { name: 'missing file', argv: validate('nope.yaml'), says: /no such task-set file/ },
  { name: 'a directory', argv: validate('repo'), says: /is a directory/ },
  // Top-level fields.
  { name: 'no tasks', files: taskFile('defaults: {}\n'), argv: validate(), says: /tasks: required field is missing/ },
  { name: 'empty task list', files: taskFile('tasks: []\n'), argv: validate(), says: /tasks: .*\(fix: list at least 1 item\)/ },
  { name: 'tasks is a scalar', files: taskFile('tasks: 3\n'), argv: validate(), says: /tasks:/ },
  { name: 'misspelt top-level field', files: taskFile(`${tasks(task())}taks: []\n`), argv: validate(), says: /unknown field "taks"/ },
  { name: 'unknown reporter', files: taskFile(`reporters: [pdf]\n${tasks(task())}`), argv: validate(), says: /reporters\[0\]: .*use one of: json/ },
  {
    name: 'unknown defaults field',
    files: taskFile(`defaults: { colour: red }\n${tasks(task())}`),
    argv: validate(),
    says: /defaults\.colour|unknown field "colour"/,
  },
  // Task fields.
  { name: 'task is a string', files: taskFile('tasks:\n  - just a string\n'), argv: validate(), says: /tasks\[0\]/ },
  {
    name: 'missing id',
    files: taskFile('tasks:\n  - repo: { path: repo }\n    instruction: x\n    tests: { command: x, fail_to_pass: [a] }\n'),
    argv: validate(),
    says: /tasks\[0\]\.id: required/,
  },
  { name: 'id with spaces', files: taskFile(tasks(task('', '"my task"'))), argv: validate(), says: /tasks\[0\]\.id: .*fix: use letters/ },
  { name: 'id is a list', files: taskFile(tasks(task('', '[a]'))), argv: validate(), says: /tasks\[0\]\.id/ },
  { name: 'duplicate ids', files: taskFile(tasks(task(), task())), argv: validate(), says: /duplicate task id/ },
  { name: 'misspelt task field', files: taskFile(tasks(task('    instrucion: x'))), argv: validate(), says: /did you mean "instruction"/ },
  { name: 'misspelt nested field', files: taskFile(tasks(task('    limits: { agent_timout: 1m }'))), argv: validate(), says: /did you mean "agent_timeout"/ },
  {
    name: 'repo with path and git',
    files: taskFile(tasks(task().replace('{ path: repo }', '{ path: repo, git: https://example.com/x.git, commit: abcdef }'))),
    argv: validate(),
    says: /tasks\[0\]\.repo: path, git, commit: fields of different forms cannot be used together \(fix: use one form: \{ path \} or \{ git, commit \} or \{ npm, integrity, registry \}\)/,
  },
  {
    name: 'repo with path and git, no commit',
    files: taskFile(tasks(task().replace('{ path: repo }', '{ path: repo, git: https://example.com/x.git }'))),
    argv: validate(),
    says: /tasks\[0\]\.repo: path, git: fields of different forms cannot be used together/,
  },
  {
    name: 'repo git without commit',
    files: taskFile(tasks(task().replace('{ path: repo }', '{ git: https://example.com/x.git }'))),
    argv: validate(),
    says: /repo\.commit: required/,
  },
  {
    name: 'repo commit too short',
    files: taskFile(tasks(task().replace('{ path: repo }', '{ git: https://example.com/x.git, commit: ab }'))),
    argv: validate(),
    says: /repo\.commit/,
  },
  {
    name: 'repo path missing',
    files: taskFile(tasks(task().replace('{ path: repo }', '{ path: nowhere }'))),
    argv: validate(),
    says: /directory not found: nowhere/,
  },
  {
    name: 'repo path is a file',
    files: taskFile(tasks(task().replace('{ path: repo }', '{ path: repo/check.sh }'))),
    argv: validate(),
    says: /not a directory/,
  },
  { name: 'repo is a string', files: taskFile(tasks(task().replace('{ path: repo }', 'repo'))), argv: validate(), says: /tasks\[0\]\.repo/ },
  {
    name: 'instruction and instruction_file',
    files: taskFile(tasks(task('    instruction_file: x.md'))),
    argv: validate(),
    says: /exactly one of instruction or instruction_file/,
  },
  {
    name: 'instruction_file missing',
    files: taskFile(tasks(task().replace('instruction: fix it', 'instruction_file: nope.md'))),
    argv: validate(),
    says: /file not found: nope\.md/,
  },
  {
    name: 'instruction is a number',
    files: taskFile(tasks(task().replace('instruction: fix it', 'instruction: 42'))),
    argv: validate(),
    says: /tasks\[0\]\.instruction: .*fix: /,
  },
  {
    name: 'empty test command',
    files: taskFile(tasks(task().replace('command: sh check.sh', 'command: ""'))),
    argv: validate(),
    says: /tests\.command: .*non-empty/,
  },
  {
    name: 'empty fail_to_pass',
    files: taskFile(tasks(task().replace('[check::fixed]', '[]'))),
    argv: validate(),
    says: /fail_to_pass: .*list at least 1 item/,
  },
  {
    name: 'fail_to_pass is a string',
    files: taskFile(tasks(task().replace('[check::fixed]', 'check::fixed'))),
    argv: validate(),
    says: /fail_to_pass: .*a list/,
  },
  { name: 'pass_to_pass is a word', files: taskFile(tasks(task('      pass_to_pass: some'))), argv: validate(), says: /pass_to_pass/ },
  { name: 'version is a list', files: taskFile(tasks(task('    version: [1]'))), argv: validate(), says: /tasks\[0\]\.version/ },
  { name: 'oracle patch missing', files: taskFile(tasks(task('    oracle: { patch: nope.patch }'))), argv: validate(), says: /file not found: nope\.patch/ },
  {
    name: 'held_out.required is text',
    files: taskFile(tasks(task('    held_out: { path: repo, command: x, required: "yes" }'))),
    argv: validate(),
    says: /held_out\.required: .*true or false/,
  },
  { name: 'tags is a string', files: taskFile(tasks(task('    metadata: { tags: python }'))), argv: validate(), says: /metadata\.tags: .*a list/ },
  // Limits and policy: types, enums, ranges.
  { name: 'duration not a duration', files: taskFile(tasks(task('    limits: { agent_timeout: soon }'))), argv: validate(), says: /agent_timeout: .*90s/ },
  { name: 'negative duration', files: taskFile(tasks(task('    limits: { test_timeout: -5 }'))), argv: validate(), says: /test_timeout/ },
  {
    name: 'duration past a timer',
    files: taskFile(tasks(task('    limits: { agent_timeout: 600h }'))),
    argv: validate(),
    says: /agent_timeout: longer than 596h, the longest timeout a timer holds \(fix: use a shorter duration, e.g\. 24h\)/,
  },
  {
    name: 'duration in seconds past a timer',
    files: taskFile(tasks(task('    limits: { setup_timeout: 3000000 }'))),
    argv: validate(),
    says: /setup_timeout: longer than 596h/,
  },
  { name: 'negative pids', files: taskFile(tasks(task('    limits: { pids: -1 }'))), argv: validate(), says: /limits\.pids: .*fix: use a number > 0/ },
  { name: 'fractional pids', files: taskFile(tasks(task('    limits: { pids: 1.5 }'))), argv: validate(), says: /limits\.pids/ },
  { name: 'size not a size', files: taskFile(tasks(task('    limits: { memory: lots }'))), argv: validate(), says: /memory: .*512m/ },
  { name: 'zero workspace files', files: taskFile(tasks(task('    limits: { workspace_files: 0 }'))), argv: validate(), says: /workspace_files/ },
  {
    name: 'unknown policy preset',
    files: taskFile(tasks(task('    policy: { preset: lenient }'))),
    argv: validate(),
    says: /policy\.preset: .*use one of: default, strict/,
  },
  { name: 'unknown check in severities', files: taskFile(tasks(task('    policy: { severities: { nosuch: error } }'))), argv: validate(), says: /severities/ },
  {
    name: 'unknown severity',
    files: taskFile(tasks(task('    policy: { severities: { test_tampering: fatal } }'))),
    argv: validate(),
    says: /use one of: info, warning, error, critical/,
  },
  {
    name: 'bad regular expression',
    files: taskFile(tasks(task('    policy: { unsafe_commands: ["("] }'))),
    argv: validate(),
    says: /unsafe_commands\[0\]: not a valid regular expression \(fix: write a JavaScript regular expression/,
  },
  {
    name: 'unknown secret preset',
    files: taskFile(tasks(task('    policy: { secrets: { presets: [passwords] } }'))),
    argv: validate(),
    says: /presets\[0\]: .*use one of/,
  },
  { name: 'negative max_added_lines', files: taskFile(tasks(task('    policy: { max_added_lines: -3 }'))), argv: validate(), says: /max_added_lines: .*≥ 0/ },
  // `run` flags.
  { name: 'no agent', argv: ['run', 'tasks.yaml', '--sandbox', 'local', '--out', 'state'], says: /no agent given/ },
  { name: '--runs 0', argv: run('--runs', '0'), says: /--runs 0/ },
  { name: '--runs abc', argv: run('--runs', 'abc'), says: /--runs abc/ },
  { name: '--runs a billion', argv: run('--runs', '1000000000'), says: /--runs 1000000000: at most 100,000/ },
  { name: 'plan over the ceiling', argv: run('--agent', 'oracle', '--runs', '60000'), says: /--runs 60000 × 1 task\(s\) × 2 agent\(s\) = 120,000 attempts/ },
  { name: '--concurrency 0', argv: run('--concurrency', '0'), says: /--concurrency 0/ },
  { name: '--agent-timeout 600h', argv: run('--agent-timeout', '600h'), says: /--agent-timeout 600h: longer than 596h/ },
  { name: '--agent-timeout soon', argv: run('--agent-timeout', 'soon'), says: /--agent-timeout soon/ },
  { name: '--out is a file', argv: ['run', 'tasks.yaml', '--agent', 'nop', '--sandbox', 'local', '--out', 'tasks.yaml'], says: /--out tasks\.yaml: is a file/ },
  {
    name: '--out cannot be created',
    argv: ['run', 'tasks.yaml', '--agent', 'nop', '--sandbox', 'local', '--out', '/proc/crucible-state'],
    says: /--out \/proc\/crucible-state/,
  },
  {
    name: '--out under a file',
    argv: ['run', 'tasks.yaml', '--agent', 'nop', '--sandbox', 'local', '--out', 'tasks.yaml/state'],
    says: /--out tasks\.yaml\/state/,
  },
  { name: '--sandbox podman', argv: run('--sandbox', 'podman'), says: /podman/ },
  { name: '--force without --resume', argv: run('--force'), says: /--force only applies with --resume/ },
  { name: '--retry-errors without --resume', argv: run('--retry-errors'), says: /--retry-errors only applies with --resume/ },
  { name: '--resume unknown run', argv: run('--resume', 'nosuchrun'), says: /nosuchrun/ },
  { name: '--task unknown', argv: run('--task', 'nosuch'), says: /nosuch/ },
  { name: '--max-cost abc', argv: run('--model', 'openai:gpt-4o-mini', '--max-cost', 'abc'), says: /--max-cost abc/ },
  {
    name: '--base-url not a URL',
    argv: run('--model', 'openai:gpt-4o-mini', '--base-url', 'notaurl'),
    env: { OPENAI_API_KEY: 'sk-test' },
    says: /--base-url notaurl: not an http\(s\) URL/,
  },
  {
    name: '--record into a file',
    argv: run('--model', 'openai:gpt-4o-mini', '--record', 'tasks.yaml'),
    env: { OPENAI_API_KEY: 'sk-test' },
    says: /--record tasks\.yaml: is a file/,
  },
  {
    name: '--pricing file missing',
    argv: run('--model', 'openai:gpt-4o-mini', '--pricing', 'nope.yaml'),
    env: { OPENAI_API_KEY: 'sk-test' },
    says: /--pricing: .*nope\.yaml/,
  },
  { name: 'model flag without a model', argv: run('--max-tokens', '100'), says: /need a model agent/ },
  { name: 'unknown agent', argv: run('--agent', 'bogus') },
  { name: 'unknown option', argv: run('--frobnicate') },
  { name: 'unknown command', argv: ['frobnicate'] },
  // Reading the history.
  { name: 'history --limit abc', argv: ['history', '--out', 'history', '--limit', 'abc'], says: /--limit abc/ },
  { name: 'history --since yesterday', argv: ['history', '--out', 'history', '--since', 'yesterday'], says: /since .*fix: e\.g\. --since/ },
  { name: 'history --json --csv', argv: ['history', '--out', 'history', '--json', '--csv'] },
  { name: 'history --run unknown', argv: ['history', '--out', 'history', '--run', 'nosuchrun'], says: /nosuchrun: no run/ },
  { name: 'show unknown id', argv: ['show', 'nosuchrun', '--out', 'history'], says: /nosuchrun: no run or attempt/ },
  { name: 'show without history', argv: ['show', 'nosuchrun', '--out', 'state'], says: /no history/ },
  { name: 'compare unknown runs', argv: ['compare', 'nosuch-a', 'nosuch-b', '--out', 'history'], says: /nosuch-a/ },
  { name: 'resume unknown run', argv: ['resume', 'nosuchrun', '--out', 'history'], says: /nosuchrun/ },
  { name: 'history --out a file', argv: ['history', '--out', 'tasks.yaml'], says: /--out tasks\.yaml: is a file/ },
  { name: 'history.db not SQLite', argv: ['history', '--out', 'garbage'], says: /not a SQLite database .*fix: restore history\.db/ },
  { name: 'history.db truncated', argv: ['history', '--out', 'truncated'], says: /history/ },
  { name: 'view over a history.db that is not SQLite', argv: ['view', '--out', 'garbage', '--port', '0'], says: /not a SQLite database/ },
  { name: 'view over a truncated history.db', argv: ['view', '--out', 'truncated', '--port', '0'], says: /history/ },
  {
    name: 'view --host that does not resolve',
    argv: ['view', '--out', 'history', '--port', '0', '--host', 'no-such-host.invalid'],
    says: /--host no-such-host\.invalid: does not resolve/,
  },
  { name: 'view --port 99999', argv: ['view', '--out', 'history', '--port', '99999'], says: /--port 99999/ },
  { name: 'view --port abc', argv: ['view', '--out', 'history', '--port', 'abc'], says: /--port abc/ },
  {
    name: 'schema --out into a missing directory',
    argv: ['schema', '--out', 'no/such/dir/schema.json'],
    says: /--out no\/such\/dir\/schema\.json: its directory does not exist/,
  },
  { name: 'schema --out a directory', argv: ['schema', '--out', 'repo'], says: /--out repo: is a directory/ },
];

interface Outcome {
  status: number | null;
  stderr: string;
  stdout: string;
}

/** The CLI in-process (test/helpers/cli.ts): every case fails while parsing or loading, so no process is needed. */
function runCli(argv: string[], cwd: string, env: Record<string, string> = {}): Promise<Outcome> {
  return runInProcess(argv, { cwd, env: { DEBUG: '', ...env } });
}

async function pool<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return results;
}

/** Everything the corpus shares: a repo, a valid history, a damaged one and one that is not SQLite. */
function commonFiles(root: string): void {
  mkdirSync(join(root, 'repo'), { recursive: true });
  writeFileSync(join(root, 'repo', 'check.sh'), 'exit 1\n');
  writeFileSync(join(root, 'tasks.yaml'), tasks(task()));
  mkdirSync(join(root, 'history'));
  openHistory(join(root, 'history', 'history.db')).close();
  mkdirSync(join(root, 'truncated'));
  const truncated = join(root, 'truncated', 'history.db');
  openHistory(truncated).close();
  truncateSync(truncated, 1500);
  mkdirSync(join(root, 'garbage'));
  writeFileSync(join(root, 'garbage', 'history.db'), 'this is not a database\n');
}

describe('bad inputs', () => {
  let root: string;
  const outcomes = new Map<string, Outcome>();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'crucible-bad-inputs-'));
    const dirs = CORPUS.map((c, i) => {
      const dir = join(root, `case-${i}`);
      mkdirSync(dir);
      commonFiles(dir);
      for (const [name, content] of Object.entries(c.files ?? {})) writeFileSync(join(dir, name), content);
      return dir;
    });
    const results = await pool(CORPUS, 3, (c) => runCli(c.argv, dirs[CORPUS.indexOf(c)] as string, c.env));
    CORPUS.forEach((c, i) => outcomes.set(c.name, results[i] as Outcome));
  }, 600_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(CORPUS.map((c) => [c.name, c] as const))('%s: exit 2, one line with a fix, no stack trace', (_name, c) => {
    const outcome = outcomes.get(c.name) as Outcome;
    const shown = `crucible ${c.argv.join(' ')}\nexit ${outcome.status}\n${outcome.stderr}`;
    expect(outcome.stderr, shown).not.toMatch(/this is a bug/i);
    expect(outcome.stderr, shown).not.toMatch(/^\s+at .+[:(]\d+:\d+\)?$/m);
    expect(outcome.status, shown).toBe(2);
    const errors = outcome.stderr.split('\n').filter((line) => /^error/.test(line));
    expect(errors, shown).toHaveLength(1);
    // Commander's usage errors end in its pointer to --help; everything else names its fix.
    expect(outcome.stderr, shown).toMatch(/\(fix: [^)]|run with --help for usage/);
    if (c.says) expect(errors[0], shown).toMatch(c.says);
  });

  it('refuses a task-set file over the size limit before reading it', async () => {
    const dir = join(root, 'huge');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tasks.yaml'), tasks(task()));
    truncateSync(join(dir, 'tasks.yaml'), 10 * 1024 * 1024 + 1);
    const outcome = await runCli(['validate', 'tasks.yaml'], dir);
    expect(outcome.status, outcome.stderr).toBe(2);
    expect(outcome.stderr).toMatch(/tasks\.yaml: 10\.0 MB, over the 10 MB limit .*\(fix: /);
  });

  it('accepts an anchor shared by many tasks', async () => {
    const dir = join(root, 'anchors');
    mkdirSync(dir);
    commonFiles(dir);
    // One anchor on the first task's tests, aliased by 500 more: how users share settings.
    const many = Array.from({ length: 500 }, (_, i) => `  - id: t${i}\n    repo: { path: repo }\n    instruction: fix it\n    tests: *tests`);
    const first =
      '  - id: t-first\n    repo: { path: repo }\n    instruction: fix it\n    tests: &tests\n      command: sh check.sh\n      fail_to_pass: [check::fixed]';
    writeFileSync(join(dir, 'tasks.yaml'), `tasks:\n${first}\n${many.join('\n')}\n`);
    const outcome = await runCli(['run', 'tasks.yaml', '--agent', 'nop', '--task', 'nosuch', '--sandbox', 'local', '--out', 'state'], dir);
    // It parses (501 tasks, 500 aliases) and gets as far as the task selection.
    expect(outcome.stderr).toMatch(/nosuch/);
    expect(outcome.stderr).not.toMatch(/alias/i);
    expect(existsSync(join(dir, 'state', 'runs'))).toBe(false);
  });
});
