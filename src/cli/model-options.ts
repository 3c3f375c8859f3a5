import type { OptionGroup } from './options.js';

/** Kept equal to the engine's DEFAULT_MAX_TURNS; repeated here so `crucible --help` loads no engine code. */
const DEFAULT_MAX_TURNS = 50;

/** `crucible run`'s flags for model agents, as commander parses them. */
export interface ModelCliOptions {
  model?: string[];
  /** `URL` (the one provider the models use) or `provider=URL`, repeatable. */
  baseUrl?: string[];
  maxTurns?: string;
  maxTokens?: string;
  maxCost?: string;
  maxCostTotal?: string;
  maxTokensTotal?: string;
  maxTestRuns?: string;
  agentTimeout?: string;
  providerStall?: string;
  record?: string;
  replay?: string;
  pricing?: string;
}

/** The flags of the built-in model agent, on `run` and `gate`. */
export const MODEL_OPTIONS: OptionGroup = [
  {
    flags: '-m, --model <provider:model>',
    description: 'the built-in agent on this model (repeatable): openai:, anthropic:, google:, groq:, ollama:, openai-compatible:',
    repeatable: true,
  },
  {
    flags: '--base-url <[provider=]url>',
    description: 'upstream URL for the models (required for openai-compatible:, e.g. http://127.0.0.1:8000/v1); provider=URL per provider, repeatable',
    repeatable: true,
  },
  { flags: '--max-turns <n>', description: `model calls per attempt (default ${DEFAULT_MAX_TURNS})` },
  { flags: '--max-tokens <n>', description: 'input + output tokens per attempt; more stops the attempt as budget_exceeded' },
  { flags: '--max-cost <usd>', description: 'dollars per attempt, priced from pricing.yaml; more stops it as budget_exceeded' },
  { flags: '--max-tokens-total <n>', description: 'input + output tokens for the whole run; once reached no new attempt starts' },
  { flags: '--max-cost-total <usd>', description: 'dollars for the whole run; once reached no new attempt starts (also across --queue workers)' },
  { flags: '--max-test-runs <n>', description: 'run_tests calls per attempt' },
  { flags: '--agent-timeout <duration>', description: "overrides every task's agent_timeout, e.g. 90s, 10m" },
  {
    flags: '--provider-stall <duration>',
    description:
      'a provider silent this long (no headers, or no bytes mid-stream) is cut off and the request counted as failed at the provider (default 5m; 0 for none)',
  },
  { flags: '--record <dir>', description: 'also record every model exchange as cassettes in <dir>', conflicts: 'replay' },
  { flags: '--replay <dir>', description: 'answer model requests from the cassettes in <dir>, offline, without API keys' },
  { flags: '--pricing <file>', description: 'a pricing.yaml whose entries override the bundled prices' },
];
