import { describe, expect, it } from 'vitest';
import { parseModelSpec, type ModelSpec } from '../../src/domain/agents/index.js';
import { baseUrlFlags } from '../../src/cli/model-run.js';
import { checkModelSpecs, volatileValues } from '../../src/engine/gateway-lifecycle.js';
import { InputError, OptionError } from '../../src/core/errors.js';
import { tinyTaskSet } from '../cli/fixtures.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const env = { OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-a' };
// What createExternalAgent gives claude-code and codex: the provider their protocol is metered on.
const claude: ModelSpec = { spec: 'claude-code', provider: 'anthropic', modelId: 'claude-sonnet-4-5' };
const codex: ModelSpec = { spec: 'codex', provider: 'openai', modelId: 'gpt-5-codex' };

describe('--base-url per provider', () => {
  it('reads URL and provider=URL forms, repeatable', () => {
    expect(baseUrlFlags(['http://127.0.0.1:8000/v1'])).toEqual({ baseUrl: 'http://127.0.0.1:8000/v1' });
    expect(baseUrlFlags(['anthropic=http://127.0.0.1:9000', 'openai=http://127.0.0.1:9000/v1'])).toEqual({
      baseUrls: { anthropic: 'http://127.0.0.1:9000', openai: 'http://127.0.0.1:9000/v1' },
    });
    expect(baseUrlFlags([])).toEqual({});
  });

  it('refuses a bad URL, an unknown provider, a provider twice and two bare URLs, in one line each', () => {
    for (const [values, message] of [
      [['anthropic=ftp://x'], /--base-url anthropic=ftp:\/\/x: not an http\(s\) URL/],
      [['nosuch=http://x'], /unknown provider nosuch \(fix: use one of openai, anthropic/],
      [['openai=http://a/v1', 'openai=http://b/v1'], /openai is given twice/],
      [['http://a/v1', 'http://b/v1'], /a second URL without a provider/],
    ] as const) {
      expect(() => baseUrlFlags(values)).toThrow(InputError);
      expect(() => baseUrlFlags(values)).toThrow(message);
    }
  });

  it('gives each provider its own upstream, so claude-code and codex share one run against local upstreams', () => {
    const checked = checkModelSpecs([claude, codex], { env, baseUrls: { anthropic: 'http://127.0.0.1:9000/v1', openai: 'http://127.0.0.1:9001/v1' } });
    expect(checked.upstreams.anthropic).toEqual({ kind: 'anthropic', baseUrl: 'http://127.0.0.1:9000', apiKeyEnv: 'ANTHROPIC_API_KEY' });
    expect(checked.upstreams.openai).toEqual({ kind: 'openai', baseUrl: 'http://127.0.0.1:9001/v1', apiKeyEnv: 'OPENAI_API_KEY' });
    // The single form still applies to a run of one provider, and says how to name them otherwise.
    expect(checkModelSpecs([parseModelSpec('openai:gpt-4.1-mini'), codex], { env, baseUrl: 'http://127.0.0.1:1/v1' }).upstreams.openai?.baseUrl).toBe(
      'http://127.0.0.1:1/v1',
    );
    expect(() => checkModelSpecs([claude, codex], { env, baseUrl: 'http://127.0.0.1:1' })).toThrow(OptionError);
    expect(() => checkModelSpecs([claude, codex], { env, baseUrl: 'http://127.0.0.1:1' })).toThrow(/anthropic=URL, openai=URL/);
  });

  it('the CLI exits 2 with one line for a bad --base-url', () => {
    const file = tinyTaskSet(tempDir(), 1);
    const result = crucible(['run', file, '--model', 'openai:gpt-4.1-mini', '--base-url', 'openai=not-a-url', '--out', tempDir()], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--base-url openai=not-a-url: not an http(s) URL');
  });
});

describe('volatile values of an attempt', () => {
  it('names the workspace, HOME and attempt directory by placeholder, longest first so the attempt directory never eats the others', () => {
    const attemptDir = '/no/such/runs/r1/attempts/a1';
    expect(volatileValues({ workspace: `${attemptDir}/workspace`, home: `${attemptDir}/home`, attemptDir })).toEqual([
      { value: `${attemptDir}/workspace`, as: '<workspace>' },
      { value: `${attemptDir}/home`, as: '<home>' },
      { value: attemptDir, as: '<attempt>' },
    ]);
  });

  it("names the agent's install directory, which differs from machine to machine", () => {
    const attemptDir = '/no/such/runs/r1/attempts/a1';
    const agentDirs = ['/elsewhere/cache/gemini-cli-0123456789ab'];
    expect(volatileValues({ workspace: `${attemptDir}/workspace`, home: `${attemptDir}/home`, attemptDir, agentDirs })).toContainEqual({
      value: agentDirs[0],
      as: '<agent>',
    });
  });
});
