// Holes the policy fuzzer (src/features/diagnostics/fuzz*.ts) found, pinned here so they stay closed.
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/domain/checks/index.js';
import { matcher } from '../../src/domain/evidence/index.js';
import { command, diffOf, input, taskFor } from './helpers.js';

describe('path matching cleans paths up lexically', () => {
  it.each([
    ['.github//workflows/ci.yml', true],
    ['.github/./workflows/ci.yml', true],
    ['src/../.github/workflows/ci.yml', true],
    ['../.github/ci.yml', false],
    ['.githubx/ci.yml', false],
  ])('.github/** against %s → %s', (path, matched) => {
    expect(matcher(['.github/**'])(path)).toBe(matched);
  });

  it('a `..` out of an allowed directory is out of scope', () => {
    const task = taskFor({ policy: { allowedPaths: ['src/**'] } });
    expect(CHECKS.scope.run(input({ task, diff: diffOf([{ path: 'src/../deploy.sh' }]) })).passed).toBe(false);
    expect(CHECKS.scope.run(input({ task, diff: diffOf([{ path: 'src//a/../b.ts' }]) })).passed).toBe(true);
  });

  it('a doubled slash does not hide a forbidden path', () => {
    const task = taskFor({ policy: { forbiddenPaths: ['infra/*.tf'] } });
    expect(CHECKS.forbidden_paths.run(input({ task, diff: diffOf([{ path: 'infra//main.tf' }]) })).passed).toBe(false);
  });
});

describe('unsafe commands', () => {
  const unsafe = (script: string): boolean => !CHECKS.unsafe_commands.run(input({ commands: [command(script)] })).passed;

  it('sees git push behind global options that take a value', () => {
    expect(unsafe('git -C . push')).toBe(true);
    expect(unsafe('git -c user.name=x push origin main')).toBe(true);
    expect(unsafe('git stash push -m wip')).toBe(false);
  });

  it('reads shell scripts nested in the command line', () => {
    expect(unsafe(`bash -c 'rm -rf /'`)).toBe(true);
    expect(unsafe(`env dash -c "sudo id"`)).toBe(true);
    expect(unsafe(`sh -c "bash -c 'echo x > /etc/hosts'"`)).toBe(true);
    expect(unsafe(`bash -c 'make test'`)).toBe(false);
  });

  it('sees a report forged from a nested shell', () => {
    const reportDir = '/w/attempt/results';
    const result = CHECKS.test_tampering.run(input({ reportDir, commands: [command(`bash -c 'cp fake.xml ${reportDir}/junit.xml'`)] }));
    expect(result.passed).toBe(false);
  });
});
