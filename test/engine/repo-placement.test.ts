/**
 * A local repo that is the filesystem root, or that holds the state directory, is refused in one
 * line before anything is written: its copy would hold /proc, or the runs copying themselves.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function taskSet(dir: string, repoPath: string): string {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'check.sh'), 'exit 0\n');
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    `tasks:\n  - id: t1\n    repo: { path: ${JSON.stringify(repoPath)} }\n    instruction: fix it\n    tests:\n      command: sh check.sh\n      format: tap\n      fail_to_pass: [t]\n`,
  );
  return file;
}

describe('where a local repo may be', () => {
  it('refuses the filesystem root, naming the field, before any run directory exists', async () => {
    const dir = tempDir();
    const out = join(dir, 'state');
    const r = await runCli(['run', taskSet(dir, '/'), '--agent', 'nop', '--out', out, '--sandbox', 'local']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/tasks\.yaml: tasks\[\d+\]\.repo\.path: the filesystem root is not a repository \(fix: /);
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });

  it('refuses a repo that holds the state directory elsewhere than its top-level .crucible', async () => {
    const dir = tempDir();
    const r = await runCli(['run', taskSet(dir, 'repo'), '--agent', 'nop', '--out', join(dir, 'repo', 'build', 'state'), '--sandbox', 'local']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /repo\.path: \S+\/repo holds Crucible's state directory .*\(fix: keep the state in the repo's top-level \.crucible, or pass --out/,
    );
  });

  it("accepts the repo's own .crucible as the state directory: the copy leaves it out", async () => {
    const dir = tempDir();
    const r = await runCli(['run', taskSet(dir, 'repo'), '--agent', 'nop', '--out', join(dir, 'repo', '.crucible'), '--sandbox', 'local']);
    expect(r.stderr).not.toMatch(/state directory/);
    expect(existsSync(join(dir, 'repo', '.crucible', 'runs'))).toBe(true);
  });
});
