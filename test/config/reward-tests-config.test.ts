import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/config/index.js';
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
