import type { Agent } from '../agent.js';
import { parseModelSpec, type ProviderName } from '../models/providers.js';

/**
 * Providers whose AI SDK package sends no output limit when the agent gives none (it gives none);
 * Anthropic's and Bedrock's fill in one of their own, so their requests are not known to be unbounded.
 */
const UNBOUNDED_OUTPUT: ReadonlySet<ProviderName> = new Set(['openai', 'azure', 'groq', 'google', 'ollama', 'openai-compatible', 'openrouter']);

/**
 * The built-in coding agent on the model `spec` names (`openai:gpt-4.1-mini`). Cheap to create:
 * the AI SDK and provider packages load on the first attempt, not when the CLI starts.
 */
export function createModelAgent(spec: string): Agent {
  const modelSpec = parseModelSpec(spec);
  return {
    name: spec,
    modelSpec,
    ...(UNBOUNDED_OUTPUT.has(modelSpec.provider) ? { setsNoOutputLimit: true } : {}),
    async run(ctx) {
      const { runModelAgent } = await import('./run.js');
      return runModelAgent(modelSpec, ctx);
    },
  };
}
