import type { Agent } from '../agent.js';
import { parseModelSpec } from '../models/providers.js';

/**
 * The built-in coding agent on the model `spec` names (`openai:gpt-4.1-mini`). Cheap to create:
 * the AI SDK and provider packages load on the first attempt, not when the CLI starts.
 */
export function createModelAgent(spec: string): Agent {
  const modelSpec = parseModelSpec(spec);
  return {
    name: spec,
    modelSpec,
    async run(ctx) {
      const { runModelAgent } = await import('./run.js');
      return runModelAgent(modelSpec, ctx);
    },
  };
}
