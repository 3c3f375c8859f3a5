import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function load(tests: string, extra = ''): () => unknown {
  const dir = tempDir();
  mkdirSync(join(dir, 'repo'));
  mkdirSync(join(dir, 'verifier'));
  writeFileSync(
    join(dir, 'tasks.yaml'),
    `defaults:\n  tests: { pass_to_pass: all_others }\ntasks:\n  - id: x\n    repo: { path: repo }\n    instruction: x\n    tests: ${tests}\n${extra}`,
  );
  return () => loadTaskSet(join(dir, 'tasks.yaml'));
}

describe('tests.kind: reward and oracle.script in the task-set file', () => {
  it('loads a reward verifier (the defaults JUnit settings do not apply) and an inline oracle script', () => {
    const set = load('{ kind: reward, command: bash tests/test.sh, files: verifier }', '    oracle: { script: "echo hi > a.txt\\n" }\n')() as ReturnType<
      typeof loadTaskSet
    >;
    expect(set.tasks[0]).toMatchObject({
      tests: { command: 'bash tests/test.sh', failToPass: ['reward'], passToPass: [] },
      oracle: { script: 'echo hi > a.txt\n' },
    });
  });

  it('names the field and the fix for a mixed form, a bad kind, a missing files dir and an unknown oracle field', () => {
    expect(load('{ kind: reward, command: "true", fail_to_pass: [a] }')).toThrow(
      /tests\.fail_to_pass: "fail_to_pass" belongs to another form of this field \(fix: use one form:/,
    );
    expect(load('{ kind: tap, command: "true" }')).toThrow(/tests\.kind: Invalid discriminator value/);
    expect(load('{ kind: reward, command: "true", files: nowhere }')).toThrow(/tests\.files: directory not found: nowhere/);
    expect(load('{ command: "true", fail_to_pass: [a] }', '    oracle: { scrip: a.sh }\n')).toThrow(
      /oracle\.scrip: unknown field "scrip" \(fix: did you mean "script"\?\)/,
    );
    expect(load('{ command: "true", fail_to_pass: [a] }', '    oracle: { script: missing.sh }\n')).toThrow(/oracle\.script: file not found: missing\.sh/);
  });
});

describe('container-native fields: environment.workdir, tests.mount, tests.network', () => {
  it('loads a workdir (a path, or image), a verifier mounted at /tests and its network', () => {
    const set = load(
      '{ kind: reward, command: bash /tests/test.sh, files: verifier, mount: /tests, network: host }',
      '    environment: { image: "alpine:3", workdir: image }\n',
    )() as ReturnType<typeof loadTaskSet>;
    expect(set.tasks[0]?.tests.reward).toEqual({ files: expect.stringMatching(/\/verifier$/), mount: '/tests', network: 'host' });
    expect(set.tasks[0]?.environment?.workdir).toBe('image');
    const app = load('{ kind: reward, command: "true" }', '    environment: { image: "alpine:3", workdir: /app }\n')() as ReturnType<typeof loadTaskSet>;
    expect(app.tasks[0]?.environment?.workdir).toBe('/app');
    expect(app.tasks[0]?.tests.reward).toEqual({});
  });

  it('refuses a relative or root workdir, a mount without files or outside the container paths, an unknown network', () => {
    expect(load('{ kind: reward, command: "true" }', '    environment: { image: "alpine:3", workdir: app }\n')).toThrow(
      /environment\.workdir: .*expected an absolute path in the container like \/app/,
    );
    expect(load('{ kind: reward, command: "true" }', '    environment: { image: "alpine:3", workdir: / }\n')).toThrow(/environment\.workdir/);
    expect(load('{ kind: reward, command: "true", mount: /tests }')).toThrow(/tests\.mount: mount: needs the files to mount \(fix: add tests\.files/);
    expect(load('{ kind: reward, command: "true", files: verifier, mount: /a/../etc }')).toThrow(/tests\.mount: .*without \.\./);
    expect(load('{ kind: reward, command: "true", network: gateway }')).toThrow(/tests\.network/);
  });
});

describe('tests.exec and tests.env: a verifier executed directly, as Harbor runs test.sh', () => {
  it('loads exec (shown as its command) and env; exactly one of command and exec', () => {
    const set = load("{ kind: reward, exec: [/tests/test.sh, 'a b'], env: { TEST_DIR: /tests } }")() as ReturnType<typeof loadTaskSet>;
    expect(set.tasks[0]?.tests.command).toBe("/tests/test.sh 'a b'");
    expect(set.tasks[0]?.tests.reward).toEqual({ exec: ['/tests/test.sh', 'a b'], env: { TEST_DIR: '/tests' } });
    expect(load('{ kind: reward, command: "true", exec: [/tests/test.sh] }')).toThrow(/tests\.exec: exec: given with command \(fix: keep one/);
    expect(load('{ kind: reward }')).toThrow(/tests\.command: command: missing \(fix: add command:/);
    expect(load('{ kind: reward, exec: [] }')).toThrow(/tests\.exec/);
    expect(load('{ kind: reward, exec: [x], env: { "1A": b } }')).toThrow(/tests\.env/);
  });
});
