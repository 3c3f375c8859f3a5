import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const BUGGY = "export function slugify(s) {\n  return s.toLowerCase().split(/\\s+/).join('-');\n}\n";
const FIXED = "export function slugify(s) {\n  return s.toLowerCase().replace(/[^a-z0-9\\s]/g, '').split(/\\s+/).join('-');\n}\n";

/** A node repo whose tests print TAP (node --test's tap reporter), a held-out TAP test, and the fix as the oracle. */
function taskSet(): string {
  const dir = tempDir();
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(join(repo, 'test'));
  mkdirSync(join(dir, 'hidden', 'test'), { recursive: true });
  writeFileSync(join(repo, 'src', 'slug.mjs'), BUGGY);
  const testFile = (name: string, body: string): string =>
    `import test from 'node:test';\nimport assert from 'node:assert';\nimport { slugify } from '../src/slug.mjs';\ntest('${name}', async (t) => {\n${body}});\n`;
  writeFileSync(
    join(repo, 'test', 'slug.test.mjs'),
    testFile(
      'slugify',
      "  await t.test('joins words', async () => assert.equal(slugify('a b'), 'a-b'));\n  await t.test('strips punctuation', async () => assert.equal(slugify('a b!'), 'a-b'));\n",
    ),
  );
  writeFileSync(
    join(dir, 'hidden', 'test', 'hidden.test.mjs'),
    testFile('hidden', "  await t.test('strips a question mark', async () => assert.equal(slugify('X y?'), 'x-y'));\n"),
  );
  // The oracle: the diff a git repo of the fix gives.
  const scratch = join(dir, 'scratch');
  mkdirSync(join(scratch, 'src'), { recursive: true });
  writeFileSync(join(scratch, 'src', 'slug.mjs'), BUGGY);
  const git = (...args: string[]): string => execFileSync('git', ['-C', scratch, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'buggy');
  writeFileSync(join(scratch, 'src', 'slug.mjs'), FIXED);
  writeFileSync(join(dir, 'fix.patch'), git('diff'));
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    [
      'tasks:',
      '  - id: tap-slug',
      '    repo: { path: repo }',
      '    instruction: slugify keeps punctuation; strip it.',
      '    tests:',
      '      command: node --test --test-reporter=tap test/',
      '      format: tap',
      '      fail_to_pass: [slugify > strips punctuation]',
      '    held_out: { path: hidden, command: node --test --test-reporter=tap test/hidden.test.mjs, format: tap }',
      '    oracle: { patch: fix.patch }',
      '',
    ].join('\n'),
  );
  return file;
}

describe('a task graded on TAP (format: tap), through the real engine', () => {
  it('the oracle passes and nop fails, on the ids node --test prints', { timeout: attemptBudget(2) }, async () => {
    const file = taskSet();
    const out = await runCli(['run', file, '--agent', 'oracle', '--agent', 'nop', '--json', '-q', '-o', join(file, '..', '.crucible')], { attempts: 2 });
    expect(out.status, out.stderr).toBe(1);
    const summary = JSON.parse(out.stdout) as { attempts: Array<{ agent: string; verdict: string; message: string }> };
    const byAgent = Object.fromEntries(summary.attempts.map((a) => [a.agent, a]));
    expect(byAgent.oracle).toMatchObject({ verdict: 'PASS', message: 'F2P 1/1, P2P 1/1; held_out 1/1' });
    expect(byAgent.nop).toMatchObject({ verdict: 'FAIL' });
    expect(byAgent.nop?.message).toContain('slugify > strips punctuation (failed)');
    expect(out.stderr).not.toMatch(/unusable|no usable report/);
  });
});
