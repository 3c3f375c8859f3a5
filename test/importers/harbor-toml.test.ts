import { describe, expect, it } from 'vitest';
import { parseToml, TomlError } from '../../src/importers/index.js';

describe("the TOML parser for Harbor's task.toml", () => {
  it("reads Harbor's documented task.toml", () => {
    const text = [
      'version = "1.0"  # schema',
      '',
      '[metadata]',
      'author_name = "Ada"',
      "difficulty = 'easy'",
      'tags = [',
      '  "a", # first',
      '  "b",',
      ']',
      '',
      '[verifier]',
      'timeout_sec = 120.0',
      'env = { API_KEY = "sk-\\u0041", "QUOTED KEY" = "x" }',
      '',
      '[agent]',
      'timeout_sec = 1_200',
      '',
      '[environment]',
      'cpus = 1',
      'memory_mb = 2048',
      'allow_internet = false',
      'docker.image = """',
      'line one',
      'line two"""',
      "raw = '''C:\\path'''",
      'ratio = -1.5e2',
    ].join('\n');
    expect(parseToml(text)).toEqual({
      version: '1.0',
      metadata: { author_name: 'Ada', difficulty: 'easy', tags: ['a', 'b'] },
      verifier: { timeout_sec: 120, env: { API_KEY: 'sk-A', 'QUOTED KEY': 'x' } },
      agent: { timeout_sec: 1200 },
      environment: { cpus: 1, memory_mb: 2048, allow_internet: false, docker: { image: 'line one\nline two' }, raw: 'C:\\path', ratio: -150 },
    });
  });

  it('refuses what it does not know or what TOML forbids, naming the line', () => {
    const bad: Array<[string, RegExp]> = [
      ['a = 1\na = 2', /line 2: key "a" is set twice/],
      ['[t]\nx = 1\n[t]', /line 3: table \[t\] is defined twice/],
      ['a = "open', /line 1: unterminated string/],
      ['a = 1979-05-27', /unsupported value/],
      ['a = 0x1F', /unsupported value/],
      ['a = inf', /unsupported value/],
      ['[[products]]\nname = "x"', /arrays of tables/],
      ['a = 1 b = 2', /expected the end of the line/],
      ['a = "\\q"', /bad escape/],
      ['= 1', /expected a key/],
      ['a = [1, 2', /expected , or \]/],
      ['a = 1\na.b = 2', /line 2: key "a" is not a table/],
    ];
    for (const [text, message] of bad) {
      expect(() => parseToml(text), text).toThrow(TomlError);
      expect(() => parseToml(text), text).toThrow(message);
    }
  });
});
