/**
 * The published package works on its own: `npm pack` of this checkout, installed the way the
 * GitHub Action installs it (action/install.sh with the tarball) into a prefix of its own, then run
 * from an empty directory outside the checkout: `--version`, `agents list`, the key-free quick start
 * on the examples the package ships (6/6 PASS), and the action's script against that install.
 * Needs `dist/` (npm test's pretest builds it) and the npm registry for the package's dependencies.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prRepo, ROOT, runAction } from '../action/helpers.js';

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
/** A hang guard, not a guess at the time: the install compiles better-sqlite3 when no prebuilt binary can be fetched. */
const HANG_GUARD_MS = 30 * 60_000;

let root = '';
let prefix = '';
let empty = '';
let env: NodeJS.ProcessEnv = {};

function run(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** The proxy and certificate settings npm and Node read, as this machine has them. */
function networkEnv(): Record<string, string> {
  const names = /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(HTTPS?|NO)_PROXY|npm_config_(cafile|ca|registry|https?_proxy|proxy|noproxy|strict_ssl))$/i;
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => names.test(e[0]) && e[1] !== undefined));
}

function crucible(...args: string[]): SpawnSyncReturns<string> {
  return run(join(prefix, 'bin', 'crucible'), args, empty);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'crucible-packed-'));
  prefix = join(root, 'prefix');
  empty = join(root, 'elsewhere');
  mkdirSync(empty);
  // The installed CLI sees the prefix's bin first, and nothing that points back at this checkout.
  env = {
    // How this machine reaches the registry (a proxy, its CA) is the machine's, not the checkout's: kept.
    ...networkEnv(),
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? root,
    NPM_CONFIG_PREFIX: prefix,
    NPM_CONFIG_PREFER_OFFLINE: 'true',
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
  };
  const pack = spawnSync('npm', ['pack', '--pack-destination', root, '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = readdirSync(root).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball in ${root}`);
  const install = spawnSync('bash', [join(ROOT, 'action', 'install.sh')], {
    cwd: empty,
    env: { ...env, CRUCIBLE_VERSION: join(root, tarball) },
    encoding: 'utf8',
  });
  if (install.status !== 0) throw new Error(`action/install.sh with the tarball failed (exit ${install.status}): ${install.stderr.slice(-2000)}`);
}, HANG_GUARD_MS);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe(`the packed ${PACKAGE.name} package, installed outside the checkout`, () => {
  it('is named after itself, not the unrelated `crucible` package, and reports its version', () => {
    expect(PACKAGE.name).not.toBe('crucible');
    const r = crucible('--version');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(PACKAGE.version);
  });

  it('lists the agents from the profiles it ships', () => {
    const r = crucible('agents', 'list');
    expect(r.status, r.stderr).toBe(0);
    for (const name of ['claude-code', 'codex', 'gemini-cli', 'opencode', 'qwen-code']) expect(r.stdout).toContain(name);
  });

  it(
    'runs the key-free quick start on its own examples: 6/6 PASS',
    () => {
      const examples = join(prefix, 'lib', 'node_modules', PACKAGE.name, 'examples');
      const r = crucible('run', join(examples, 'tasks.yaml'), '--model', 'openai:gpt-4.1-mini', '--replay', join(examples, 'cassettes', 'quickstart'));
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      const runs = join(empty, '.crucible', 'runs');
      const [runId] = readdirSync(runs);
      const summary = JSON.parse(readFileSync(join(runs, runId ?? '', 'summary.json'), 'utf8')) as { counts: Record<string, number>; attempts: unknown[] };
      expect(summary.attempts).toHaveLength(6);
      expect(summary.counts).toMatchObject({ PASS: 6, FAIL: 0 });
    },
    HANG_GUARD_MS,
  );

  it(
    "drives the action's script with the crucible the tarball installed",
    () => {
      const repo = prRepo(root, 'edits-test');
      const r = runAction(repo, { mode: 'ci' }, { PATH: env.PATH ?? '', GITHUB_BASE_REF: 'main' });
      expect(r.outputs.verdict, r.stderr).toBe('FAIL');
      expect(r.summary).toContain('tampered');
    },
    HANG_GUARD_MS,
  );
});
