import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingExecutor } from '../../src/domain/evidence/index.js';
import { REFUSED_EXIT_CODE, startGuard, type GuardMode, type IncidentBundle } from '../../src/domain/guard/index.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import type { PolicySpec, Task } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function taskWith(policy: Partial<PolicySpec>): Pick<Task, 'policy' | 'tests' | 'heldOut'> {
  return {
    policy: {
      preset: 'default',
      forbiddenPaths: [],
      allowedPaths: [],
      unsafeCommands: [],
      secrets: { paths: [], literals: [], presets: [] },
      severities: {},
      ...policy,
    },
    tests: { testPaths: ['tests/**'] } as Task['tests'],
  };
}

async function setUp(mode: GuardMode, policy: Partial<PolicySpec> = {}, files: Record<string, string> = {}) {
  const attemptDir = tempDir();
  const workspace = join(attemptDir, 'workspace');
  for (const d of ['workspace', 'home', 'tmp']) mkdirSync(join(attemptDir, d));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(workspace, path, '..'), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
  const controller = new AbortController();
  const guard = await startGuard({
    mode,
    task: taskWith(policy),
    workspace,
    attemptDir,
    writeRoots: { workspace, home: join(attemptDir, 'home'), tmp: join(attemptDir, 'tmp'), protected: [attemptDir] },
    controller,
  });
  const sandboxed = createExecutor('local', { writable: [workspace], hidden: [], readOnly: [], home: join(attemptDir, 'home'), tmp: join(attemptDir, 'tmp') });
  const executor = recordingExecutor(guard.executor(sandboxed), join(attemptDir, 'commands.jsonl'), controller.signal);
  const sh = (script: string) => executor.exec({ argv: ['sh', '-c', script], cwd: workspace, timeoutMs: 30_000, network: 'none' });
  const incident = (): IncidentBundle => JSON.parse(readFileSync(join(attemptDir, 'incident.json'), 'utf8')) as IncidentBundle;
  return { attemptDir, workspace, controller, guard, executor, sh, incident };
}

describe('the command guard', () => {
  it('enforce: refuses an unsafe command before it runs; the agent sees why, and the log still has the try', async () => {
    const { workspace, guard, executor, sh, incident } = await setUp('enforce');
    const result = await sh('touch ran.txt && git push origin main');
    expect(result.exitCode).toBe(REFUSED_EXIT_CODE);
    expect(result.stderr).toMatch(/refused before it ran: unsafe command rule git-push/);
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
    const fine = await sh('echo ok > ok.txt');
    expect(fine.exitCode).toBe(0);
    await executor.close();
    const summary = await guard.finish();
    expect(summary).toMatchObject({ mode: 'enforce', incidents: 1, blocked: 1, auditOnly: 0, stopped: false, incidentFile: 'incident.json' });
    expect(executor.events().map((e) => e.exitCode)).toEqual([REFUSED_EXIT_CODE, 0]);
    const bundle = incident();
    expect(bundle.action).toBe('blocked');
    expect(bundle.findings[0]).toMatchObject({
      rule: 'unsafe_command',
      check: 'unsafe_commands',
      action: 'blocked',
      argv: ['sh', '-c', 'touch ran.txt && git push origin main'],
    });
    expect(bundle.findings[0]?.detectionMs).toBeGreaterThanOrEqual(0);
    expect(bundle.links).toEqual({ commands: 'commands.jsonl', diff: 'diff.patch', attempt: 'attempt.json' });
  });

  it('audit: records the same command and lets it run', async () => {
    const { workspace, guard, executor, sh } = await setUp('audit');
    const result = await sh('touch ran.txt && git push origin main');
    expect(result.exitCode).not.toBe(REFUSED_EXIT_CODE);
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(true);
    await executor.close();
    expect(await guard.finish()).toMatchObject({ mode: 'audit', incidents: 1, blocked: 0, auditOnly: 1, stopped: false });
  });

  it('redacts credential-like values in the incident and keeps host paths out of it', async () => {
    const { attemptDir, guard, executor, sh, incident } = await setUp('audit');
    await sh('GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 git push https://bot:hunter2secret@example.com/x.git');
    await executor.close();
    await guard.finish();
    const text = readFileSync(join(attemptDir, 'incident.json'), 'utf8');
    expect(text).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(text).not.toContain('hunter2secret');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(attemptDir);
    expect(incident().findings[0]?.rule).toBe('unsafe_command');
  });

  it('enforce: an unsafe command a CLI agent reports it ran stops the agent (it already ran)', async () => {
    const { workspace, controller, guard, executor } = await setUp('enforce');
    guard.reported([{ command: 'sudo rm -rf build' }, { command: 'ls' }], workspace);
    expect(controller.signal.aborted).toBe(true);
    const stoppedBy = await guard.stopped;
    expect(stoppedBy).toMatchObject({ rule: 'unsafe_command', reportedBy: 'agent', action: 'stopped' });
    await executor.close();
    expect(await guard.finish()).toMatchObject({ stopped: true, incidents: 1 });
  });
});

describe('the filesystem guard', () => {
  it('enforce: a write to a forbidden path stops the agent, with its detection time', async () => {
    const { controller, guard, executor, sh, incident } = await setUp('enforce', { forbiddenPaths: ['.github/**'] });
    await sh('mkdir -p .github/workflows && echo x > .github/workflows/ci.yml');
    const stoppedBy = await guard.stopped;
    expect(controller.signal.aborted).toBe(true);
    expect(stoppedBy).toMatchObject({
      rule: 'forbidden_path',
      check: 'forbidden_paths',
      path: '.github/workflows/ci.yml',
      detail: '.github/**',
      action: 'stopped',
    });
    // The phase is over: the executor takes no more commands.
    await expect(sh('echo later > later.txt')).rejects.toThrow(/phase has ended/);
    await executor.close();
    const summary = await guard.finish();
    expect(summary.stopped).toBe(true);
    expect(summary.detectionMs?.min).toBeGreaterThanOrEqual(0);
    expect(incident()).toMatchObject({ action: 'stopped', stoppedBy: { path: '.github/workflows/ci.yml' } });
  });

  it('audit: test-file changes, out-of-scope writes, secret-like paths, deletions and escaping symlinks are recorded; nothing stops', async () => {
    const { controller, guard, executor, sh, incident } = await setUp(
      'audit',
      { allowedPaths: ['src/**'], maxFilesChanged: 3 },
      { 'src/a.py': 'a', 'tests/test_a.py': 't', 'README.md': 'r' },
    );
    await sh(
      'echo changed >> tests/test_a.py; echo new > tests/test_new.py; echo n > notes.md; echo k > src/.env; rm README.md src/a.py; ln -s /etc src/etc-link; echo s > src/b.py',
    );
    await executor.close();
    await guard.finish();
    expect(controller.signal.aborted).toBe(false);
    const findings = incident().findings.map((f) => [f.rule, f.path, f.action].filter((w) => w !== undefined).join(' '));
    expect(findings).toEqual(
      expect.arrayContaining([
        'test_file tests/test_a.py audit_only',
        'out_of_scope notes.md audit_only',
        'out_of_scope README.md audit_only',
        'secret_path src/.env audit_only',
        'escaping_symlink src/etc-link audit_only',
        'deletion src/a.py audit_only',
        'file_count audit_only',
      ]),
    );
    // A new test file is set aside by verification, not tampering.
    expect(findings.some((f) => f.includes('tests/test_new.py'))).toBe(false);
  });

  it('enforce: an out-of-scope write is recorded, not stopped for (scope judges the final change, where a scratch file may be gone)', async () => {
    const { controller, guard, executor, sh, incident } = await setUp('enforce', { allowedPaths: ['src/**'] });
    await sh('echo y > notes.md');
    await executor.close();
    await guard.finish();
    expect(controller.signal.aborted).toBe(false);
    expect(incident().findings.map((f) => [f.rule, f.path, f.action])).toEqual([['out_of_scope', 'notes.md', 'audit_only']]);
  });

  it('judges nothing that the baseline’s .gitignore ignores (read from the baseline tree, not the workspace)', async () => {
    const attemptDir = tempDir();
    const pristine = join(attemptDir, 'pristine');
    const workspace = join(attemptDir, 'workspace');
    for (const dir of [pristine, workspace]) {
      mkdirSync(dir);
      writeFileSync(join(dir, '.gitignore'), 'build/\n');
    }
    execFileSync('git', ['init', '-q', pristine]);
    const controller = new AbortController();
    const guard = await startGuard({
      mode: 'enforce',
      task: taskWith({ forbiddenPaths: ['build/**', 'docs/**'] }),
      workspace,
      attemptDir,
      writeRoots: { workspace },
      ignoreTarget: { gitDir: join(pristine, '.git'), workTree: pristine },
      controller,
    });
    // The agent un-ignores build/ in its own copy: the baseline's rules still apply.
    mkdirSync(join(workspace, 'build'));
    writeFileSync(join(workspace, 'build/out.js'), 'o');
    mkdirSync(join(workspace, 'docs'));
    writeFileSync(join(workspace, 'docs/notes.md'), 'n');
    const stoppedBy = await guard.stopped;
    expect(stoppedBy.path).toBe('docs/notes.md');
    await guard.finish();
    const bundle = JSON.parse(readFileSync(join(attemptDir, 'incident.json'), 'utf8')) as IncidentBundle;
    expect(bundle.findings.map((f) => f.path)).toEqual(['docs/notes.md']);
  });
});
