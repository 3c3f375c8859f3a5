import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { parseTaskToml } from '../../src/features/importers/index.js';

describe("parseTaskToml (smol-toml) for Harbor's task.toml", () => {
  it('reads 1.0 and 1.1 task files, arrays of tables included, as plain data', () => {
    const doc = parseTaskToml(
      [
        'schema_version = "1.1"',
        '[task]',
        'keywords = ["a"]',
        '[[task.authors]]',
        'name = "Ada"',
        '[[task.authors]]',
        'name = "Grace"',
        '[verifier]',
        'timeout_sec = 1_200',
        'env = { KEY = "v" }',
        '[metadata]',
        'released = 2025-05-27',
      ].join('\n'),
      'task.toml',
    );
    expect(doc).toEqual({
      schema_version: '1.1',
      task: { keywords: ['a'], authors: [{ name: 'Ada' }, { name: 'Grace' }] },
      verifier: { timeout_sec: 1200, env: { KEY: 'v' } },
      metadata: { released: '2025-05-27' },
    });
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
  });

  it('refuses invalid TOML as one InputError naming the file and the line', () => {
    for (const [text, line] of [
      ['a = 1\na = 2', 2],
      ['[t]\nx = 1\n[t]', 3],
      ['a = "open', 1],
    ] as const) {
      expect(() => parseTaskToml(text, 'dir/task.toml')).toThrow(InputError);
      expect(() => parseTaskToml(text, 'dir/task.toml')).toThrow(new RegExp(`^dir/task\\.toml: line ${line}, column \\d+: .+ \\(fix: make it valid TOML`));
    }
  });
});
