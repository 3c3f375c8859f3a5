import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function load(tests: string, heldOut = ''): ReturnType<typeof loadTaskSet> {
  const dir = tempDir();
  mkdirSync(join(dir, 'repo'));
  mkdirSync(join(dir, 'hidden'));
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    `tasks:\n  - id: t\n    repo: { path: repo }\n    instruction: fix it\n    tests: ${tests}\n${heldOut ? `    held_out: ${heldOut}\n` : ''}`,
  );
  return loadTaskSet(file);
}

describe('tests.format and tests.report in a task set', () => {
  it('default junit; a stream format with its report source, for tests and held_out alike', () => {
    expect(load('{ command: x, fail_to_pass: [a] }').tasks[0]?.tests.format).toBeUndefined();
    const task = load('{ command: x, format: tap, report: file, fail_to_pass: [a] }', '{ path: hidden, command: y, format: go-json }').tasks[0];
    expect(task?.tests).toMatchObject({ format: 'tap', report: 'file' });
    expect(task?.heldOut).toMatchObject({ format: 'go-json' });
    expect(task?.heldOut?.report).toBeUndefined();
  });

  it.each([
    ['{ command: x, format: xunit, fail_to_pass: [a] }', '', /tests\.format/],
    ['{ command: x, report: file, fail_to_pass: [a] }', '', /tests\.report: report: file is for the stream formats, not junit.*drop report:/],
    ['{ command: x, format: tap, junit: out.xml, fail_to_pass: [a] }', '', /tests\.junit: junit: is a JUnit report's path, but format is tap.*report: file/],
    ['{ command: x, fail_to_pass: [a] }', '{ path: hidden, command: y, format: pytest, junit: r.xml }', /held_out\.junit/],
  ])('%s %s is an error naming the field and the fix', (tests, heldOut, error) => {
    expect(() => load(tests, heldOut)).toThrow(error);
  });
});
