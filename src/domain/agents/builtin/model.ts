import type { LanguageModel } from 'ai';
import { InputError } from '../../../core/errors.js';
import type { ModelAccess } from '../agent.js';
import type { ModelSpec } from '../models/providers.js';

/**
 * `--model provider:model` as an AI SDK model whose every request goes to this attempt's gateway
 * session. The key sent is a placeholder: the gateway adds the real one upstream.
 *
 * - openai: the Responses API (the SDK's default for OpenAI).
 * - anthropic: the Messages API.
 * - google: Gemini's OpenAI-compatible Chat Completions endpoint, through @ai-sdk/openai-compatible,
 *   because the gateway meters OpenAI- and Anthropic-shaped traffic only.
 * - groq: @ai-sdk/groq (Chat Completions).
 * - ollama, openai-compatible: @ai-sdk/openai-compatible (Chat Completions).
 * - bedrock: @ai-sdk/amazon-bedrock (the Converse API), given the placeholder as a Bedrock API key
 *   so that it signs nothing: the gateway signs upstream (SigV4) or sends the real API key. The
 *   region is the gateway's; the SDK only needs one to exist.
 * - azure: @ai-sdk/azure (the Responses API on the v1 endpoint), the model id being the deployment.
 * - vertex: @ai-sdk/google-vertex (Gemini's generateContent), given the placeholder as an express
 *   mode key so that it asks Google for no token: the gateway adds its own.
 * - openrouter: @openrouter/ai-sdk-provider (Chat Completions), usage included in every answer.
 * - gemini: refused. It is Gemini's native protocol, there for external agents (Gemini CLI); the
 *   built-in agent reaches Gemini models as `google:<model>`.
 *
 * Each provider package is imported only when a run uses it: eight SDKs loaded for one model would
 * cost every attempt's start-up what only one of them needs (test/cli/lazy-model-sdk.test.ts).
 */
export async function createLanguageModel(spec: ModelSpec, access: Pick<ModelAccess, 'baseUrls' | 'apiKey'>): Promise<LanguageModel> {
  const baseURL = access.baseUrls[spec.provider];
  if (baseURL === undefined) throw new Error(`gateway session has no route for provider ${spec.provider}`);
  const apiKey = access.apiKey;
  switch (spec.provider) {
    case 'openai':
      return (await import('@ai-sdk/openai')).createOpenAI({ baseURL, apiKey }).responses(spec.modelId);
    case 'anthropic':
      return (await import('@ai-sdk/anthropic')).createAnthropic({ baseURL: `${baseURL}/v1`, apiKey })(spec.modelId);
    case 'groq':
      return (await import('@ai-sdk/groq')).createGroq({ baseURL, apiKey })(spec.modelId);
    case 'bedrock':
      return (await import('@ai-sdk/amazon-bedrock')).createAmazonBedrock({ baseURL, apiKey, region: 'gateway' })(spec.modelId);
    case 'azure':
      return (await import('@ai-sdk/azure')).createAzure({ baseURL, apiKey }).responses(spec.modelId);
    case 'vertex':
      return (await import('@ai-sdk/google-vertex')).createVertex({ baseURL: `${baseURL}/publishers/google`, apiKey })(spec.modelId);
    case 'openrouter':
      return (await import('@openrouter/ai-sdk-provider')).createOpenRouter({ baseURL, apiKey, compatibility: 'strict' })(spec.modelId, {
        usage: { include: true },
      });
    case 'gemini':
      throw new InputError(
        `--model ${spec.spec}: the built-in agent does not speak Gemini's native protocol (fix: use --model google:${spec.modelId}, or an external agent such as gemini-cli)`,
      );
    case 'google':
    case 'ollama':
    case 'openai-compatible':
      return (await import('@ai-sdk/openai-compatible')).createOpenAICompatible({ name: spec.provider, baseURL, apiKey, includeUsage: true })(spec.modelId);
  }
}
