import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const RUN_SCRIPT = join(ROOT, 'action', 'run.mjs');

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function write(dir: string, file: string, text: string): void {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), text);
}

/**
 * A repository the way a pull_request job sees it: `main` with a function and its test, and a
 * checked-out `pr` branch whose change either only touches the source or also edits the test.
 */
export function prRepo(root: string, kind: 'clean' | 'edits-test'): string {
  const dir = join(root, `repo-${kind}`);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'ci@example.com');
  git(dir, 'config', 'user.name', 'CI');
  git(dir, 'config', 'commit.gpgsign', 'false');
  write(dir, 'package.json', JSON.stringify({ name: 'demo', type: 'module', scripts: { test: 'node --test test/' } }, null, 2));
  // What `crucible ci` runs (read as committed at base): node's runner writing JUnit where Crucible asks.
  write(dir, 'crucible.ci.yaml', 'tests:\n  command: node --test --test-reporter=junit --test-reporter-destination=$CRUCIBLE_JUNIT test/\n');
  write(dir, 'src/add.js', 'export function add(a, b) {\n  return a - b;\n}\n');
  write(
    dir,
    'test/add.test.js',
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/add.js';\n\ntest('add', () => assert.equal(add(2, 3), 5));\n",
  );
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base');
  git(dir, 'checkout', '-qb', 'pr');
  write(dir, 'src/add.js', 'export function add(a, b) {\n  return a + b;\n}\n');
  if (kind === 'edits-test') write(dir, 'test/add.test.js', "import { test } from 'node:test';\n\ntest('add', () => {});\n");
  git(dir, 'commit', '-qam', 'pr change');
  return dir;
}

export interface ActionRun {
  code: number;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Parses $GITHUB_OUTPUT the way the runner does: `name=value` and `name<<DELIM` blocks. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name = '', delimiter] = heredoc;
      const body: string[] = [];
      for (i += 1; i < lines.length && lines[i] !== delimiter; i += 1) body.push(lines[i] ?? '');
      outputs[name] = body.join('\n');
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return outputs;
}

/** Runs action/run.mjs as the runner would: a fresh process, GitHub's files, inputs as INPUT_*. */
export function runAction(workspace: string, inputs: Record<string, string>, env: Record<string, string> = {}): ActionRun {
  const files = mkdtempSync(join(tmpdir(), 'crucible-action-files-'));
  const summaryFile = join(files, 'summary.md');
  const outputFile = join(files, 'output.txt');
  writeFileSync(summaryFile, '');
  writeFileSync(outputFile, '');
  const inputEnv = Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase().replaceAll('-', '_')}`, value]));
  const r = spawnSync(process.execPath, [RUN_SCRIPT], {
    cwd: workspace,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? workspace,
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_OUTPUT: outputFile,
      ...inputEnv,
      ...env,
    },
  });
  const run = {
    code: r.status ?? -1,
    stderr: r.stderr,
    outputs: parseOutputs(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8'),
  };
  rmSync(files, { recursive: true, force: true });
  return run;
}
