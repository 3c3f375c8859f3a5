import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CassetteError, cassettePath, findCassette, flatCassettePath } from '../../src/infra/gateway/cassette.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const DIR = '/cassettes';

/** Keys whose parts are untrusted: task ids and agent names as anyone may write them. */
const HOSTILE: ReadonlyArray<readonly string[]> = [
  ['js-slugify', 'claude-code', '0'],
  ['js-slugify', 'openai:gpt-4.1-mini', '0'],
  // An agent named after a model id with `/`, and the task/agent split that names the same string.
  ['t', 'openrouter:anthropic/claude', '0'],
  ['t/openrouter:anthropic', 'claude', '0'],
  ['t', 'openrouter:anthropic%2Fclaude', '0'],
  ['..', '..', '0'],
  ['.', 'a', '0'],
  ['%2E%2E', 'a', '0'],
  ['.hidden', 'a', '0'],
  ['../../etc/passwd', 'a', '0'],
  ['a\\..\\b', 'a', '0'],
  ['a\u0000b', 'a', '0'],
  ['a\nb', 'a', '0'],
  ['A', 'a', '0'],
  ['%41', 'a', '0'],
  ['tâche', 'agent', '0'],
  ['\uD800', 'a', '0'],
  ['\uD801', 'a', '0'],
  ['\uFFFD', 'a', '0'],
  // A directory named like another key's file.
  ['x.jsonl', 'a', '0'],
  ['x', 'a.jsonl', '0'],
  ['x', 'a', '0.jsonl'],
  ['x', 'a'],
  ['x', 'a', '0', 'extra'],
  ['long'.repeat(100), 'a', '0'],
  [`${'long'.repeat(100)}x`, 'a', '0'],
];

describe('cassettePath', () => {
  it('lays cassettes out as <task>/<agent>/<trial>.jsonl, each part a readable name', () => {
    expect(cassettePath(DIR, ['js-slugify', 'claude-code', '0'])).toBe('/cassettes/js-slugify/claude-code/0.jsonl');
    expect(cassettePath(DIR, 'js-slugify/openai:gpt-4.1-mini/0')).toBe('/cassettes/js-slugify/openai%3Agpt-4.1-mini/0.jsonl');
    // Given as parts, an agent name holding `/` stays one directory.
    expect(cassettePath(DIR, ['t', 'openrouter:anthropic/claude', '0'])).toBe('/cassettes/t/openrouter%3Aanthropic%2Fclaude/0.jsonl');
  });

  it('keeps every key, however named, inside the directory', () => {
    for (const key of HOSTILE) {
      const file = cassettePath(DIR, key);
      const inside = relative(DIR, resolve(file));
      expect(inside.startsWith('..') || inside.startsWith(sep), `${JSON.stringify(key)} -> ${file}`).toBe(false);
      // No part is `.`/`..` or hidden, and no name is longer than a file system holds.
      for (const name of inside.split(sep)) {
        expect(name.startsWith('.'), `${JSON.stringify(key)} -> ${file}`).toBe(false);
        expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      }
    }
  });

  it('gives distinct keys distinct files, none of them inside another key’s file', () => {
    const files = HOSTILE.map((key) => cassettePath(DIR, key));
    expect(new Set(files).size).toBe(files.length);
    for (const a of files) for (const b of files) expect(b.startsWith(`${a}${sep}`), `${b} is under ${a}`).toBe(false);
  });

  it('refuses an empty part, naming it and the fix', () => {
    expect(() => cassettePath(DIR, ['task', '', '0'])).toThrow(CassetteError);
    expect(() => cassettePath(DIR, 'task//0')).toThrow('cassette key "task//0": part 2 is empty (fix: give every part of the key a name)');
  });
});

describe('findCassette', () => {
  it('finds a recording in the folder layout, or one made before it in the flat layout, preferring the folder', () => {
    const dir = tempDir();
    const key = ['js-slugify', 'openai:gpt-4.1-mini', '0'];
    expect(findCassette(dir, key)).toBeUndefined();
    const flat = flatCassettePath(dir, key);
    expect(flat).toBe(join(dir, 'js-slugify%2Fopenai%3Agpt-4.1-mini%2F0.jsonl'));
    writeFileSync(flat, '');
    expect(findCassette(dir, key)).toBe(flat);
    const folder = cassettePath(dir, key);
    mkdirSync(dirname(folder), { recursive: true });
    writeFileSync(folder, '');
    expect(findCassette(dir, key)).toBe(folder);
  });
});
