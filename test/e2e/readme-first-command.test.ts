/**
 * The README's first command, as written, from an empty directory: the packed package (`npm pack`
 * of this checkout) installed there from the tarball, its dependencies from the registry, then
 * the command read from the README's first shell block run by a shell. It must print the quick
 * start's result. Needs `dist/` and the npm registry (the registry tier).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICKSTART_EXAMPLES } from '../../src/cli/bundled-examples.js';
import { ROOT } from '../action/helpers.js';
import { attemptBudget } from '../helpers/budget.js';

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; files: string[] };
/** A hang guard, not a guess at the time: the install compiles better-sqlite3 when no prebuilt binary can be fetched. */
const HANG_GUARD_MS = 30 * 60_000;

/** The first line of the README's first fenced shell block. */
function readmeFirstCommand(): string {
  const block = /```sh\n([^\n]+)\n/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  if (!block?.[1]) throw new Error('README.md has no ```sh block');
  return block[1].trim();
}

let root = '';
let empty = '';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'crucible-readme-'));
  empty = join(root, 'empty');
  mkdirSync(empty);
  const pack = spawnSync('npm', ['pack', '--pack-destination', root, '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = readdirSync(root).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball in ${root}`);
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(root, tarball)], { cwd: empty, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`npm install of the tarball failed (exit ${install.status}): ${install.stderr.slice(-2000)}`);
}, HANG_GUARD_MS);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the README's first command, from an empty directory", () => {
  it('is the package run by npx, and the package ships every example it copies', () => {
    expect(readmeFirstCommand()).toMatch(new RegExp(`^npx ${PACKAGE.name} `));
    for (const part of QUICKSTART_EXAMPLES) expect(PACKAGE.files).toContain(`examples/${part}`);
  });

  it(
    "prints the quick start's result as written",
    () => {
      const r = spawnSync('bash', ['-c', readmeFirstCommand()], {
        cwd: empty,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', CI: 'true', OPENAI_API_KEY: '' },
        timeout: attemptBudget(12),
      });
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stderr).toMatch(/^sandbox: bwrap/m);
      expect(r.stdout).toMatch(/6\/6 attempts: 6 passed, 0 failed, 0 errored/);
      expect(r.stdout).toMatch(/^total\s+34\s+34\s/m);
      expect(readdirSync(join(empty, 'crucible-quickstart')).sort()).toEqual(['cassettes', 'held-out', 'oracles', 'repos', 'tasks.yaml']);
    },
    attemptBudget(12) + 60_000,
  );
});
