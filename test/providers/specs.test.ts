import { describe, expect, it } from 'vitest';
import { isModelSpec, ollamaHost, parseModelSpec, upstreamFor } from '../../src/domain/agents/models/providers.js';
import { createLanguageModel } from '../../src/domain/agents/builtin/model.js';
import { checkModelSpecs } from '../../src/engine/gateway-lifecycle.js';
import { InputError } from '../../src/core/errors.js';

const specs = (...names: string[]) => names.map(parseModelSpec);

describe('model specs', () => {
  it('parses provider:model, keeping colons and slashes in the model id', () => {
    expect(parseModelSpec('ollama:qwen2.5-coder:7b')).toEqual({ spec: 'ollama:qwen2.5-coder:7b', provider: 'ollama', modelId: 'qwen2.5-coder:7b' });
    expect(parseModelSpec('openai-compatible:meta-llama/Llama-3.3-70B')).toMatchObject({ provider: 'openai-compatible', modelId: 'meta-llama/Llama-3.3-70B' });
    expect(isModelSpec('oracle')).toBe(false);
    expect(() => parseModelSpec('mistral:large')).toThrow(/provider one of openai, anthropic, google, gemini, groq, ollama, openai-compatible/);
  });

  it('finds Ollama where OLLAMA_HOST says, as Ollama reads it', () => {
    expect(ollamaHost({})).toBe('http://127.0.0.1:11434');
    expect(ollamaHost({ OLLAMA_HOST: '0.0.0.0:11500' })).toBe('http://127.0.0.1:11500');
    expect(ollamaHost({ OLLAMA_HOST: 'https://gpu-box:443/' })).toBe('https://gpu-box:443');
  });
});

describe('checking model agents before a run', () => {
  const fail = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      return (error as Error).message;
    }
    throw new Error('expected an InputError');
  };

  it('names the missing key variable, in one line, unless replaying', () => {
    expect(fail(() => checkModelSpecs(specs('anthropic:claude-sonnet-4-5'), { env: {} }))).toBe(
      '--model anthropic:claude-sonnet-4-5: ANTHROPIC_API_KEY is not set (fix: export ANTHROPIC_API_KEY=<your key>, or replay a cassette with --replay DIR)',
    );
    expect(fail(() => checkModelSpecs(specs('google:gemini-2.5-flash'), { env: {} }))).toMatch(/GOOGLE_GENERATIVE_AI_API_KEY \(or GEMINI_API_KEY\) is not set/);
    expect(checkModelSpecs(specs('google:gemini-2.5-flash'), { env: { GEMINI_API_KEY: 'k' } }).upstreams['google']).toMatchObject({
      apiKeyEnv: 'GEMINI_API_KEY',
    });
    expect(checkModelSpecs(specs('ollama:llama3.2'), { env: {} }).upstreams['ollama']).toEqual({ kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(() => checkModelSpecs(specs('openai:gpt-4.1'), { env: {}, mode: 'replay', cassetteDir: '.' })).not.toThrow();
  });

  it("routes gemini: to Gemini's native protocol, keyed by GEMINI_API_KEY or GOOGLE_API_KEY, base without a version", async () => {
    expect(fail(() => upstreamFor('gemini', { env: {}, replay: false, spec: 'gemini:gemini-2.5-pro' }))).toMatch(
      /^--model gemini:gemini-2.5-pro: GEMINI_API_KEY \(or GOOGLE_API_KEY\) is not set/,
    );
    expect(upstreamFor('gemini', { env: { GOOGLE_API_KEY: 'k' }, replay: false, spec: 'gemini:gemini-2.5-pro' })).toEqual({
      name: 'gemini',
      config: { kind: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com', apiKeyEnv: 'GOOGLE_API_KEY' },
    });
    // Gemini's native protocol is for external agents; the built-in agent says what to use instead.
    await expect(createLanguageModel(parseModelSpec('gemini:gemini-2.5-pro'), { baseUrls: { gemini: 'http://x' }, apiKey: 'k' })).rejects.toThrow(
      /built-in agent does not speak Gemini's native protocol \(fix: use --model google:gemini-2.5-pro/,
    );
    const proxied = upstreamFor('gemini', { env: {}, replay: true, baseUrl: 'https://proxy.example/v1beta', spec: 'gemini:g' });
    expect(proxied.config).toEqual({ kind: 'gemini', baseUrl: 'https://proxy.example' });
  });

  it('needs --base-url for openai-compatible, and only one provider with it', () => {
    expect(fail(() => checkModelSpecs(specs('openai-compatible:qwen'), { env: {} }))).toMatch(/needs --base-url/);
    const ok = checkModelSpecs(specs('openai-compatible:qwen'), { env: {}, baseUrl: 'http://127.0.0.1:8000/v1' });
    expect(ok.upstreams['openai-compatible']).toEqual({ kind: 'openai', baseUrl: 'http://127.0.0.1:8000/v1' });
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };
    expect(fail(() => checkModelSpecs(specs('openai:gpt-4.1', 'anthropic:claude-sonnet-4-5'), { env, baseUrl: 'http://x/v1' }))).toMatch(
      /applies to one provider/,
    );
    // The AI SDK's form of an Anthropic base URL ends in /v1; the gateway's does not.
    expect(checkModelSpecs(specs('anthropic:claude-sonnet-4-5'), { env, baseUrl: 'https://proxy.example/v1' }).upstreams['anthropic']?.baseUrl).toBe(
      'https://proxy.example',
    );
  });

  it('refuses a cost limit it cannot price, and a replay without its directory', () => {
    const env = { OPENAI_COMPATIBLE_API_KEY: 'k' };
    expect(fail(() => checkModelSpecs(specs('openai-compatible:qwen'), { env, baseUrl: 'http://x/v1', limits: { maxCostUsd: 1 } }))).toMatch(
      /has no price in pricing.yaml/,
    );
    expect(fail(() => checkModelSpecs(specs('openai:gpt-4.1'), { env: {}, mode: 'replay', cassetteDir: '/nonexistent/cassettes' }))).toMatch(
      /no such directory/,
    );
    expect(checkModelSpecs(specs('openai:gpt-4.1'), { env: { OPENAI_API_KEY: 'k' } }).limits).toEqual({ maxTurns: 50 });
  });
});
