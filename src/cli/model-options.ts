import { Option, type Command } from 'commander';

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

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function addModelOptions(command: Command): Command {
  return command
    .option(
      '-m, --model <provider:model>',
      'the built-in agent on this model (repeatable): openai:, anthropic:, google:, groq:, ollama:, openai-compatible:',
      collect,
    )
    .option(
      '--base-url <[provider=]url>',
      'upstream URL for the models (required for openai-compatible:, e.g. http://127.0.0.1:8000/v1); provider=URL per provider, repeatable',
      collect,
    )
    .option('--max-turns <n>', `model calls per attempt (default ${DEFAULT_MAX_TURNS})`)
    .option('--max-tokens <n>', 'input + output tokens per attempt; more stops the attempt as budget_exceeded')
    .option('--max-cost <usd>', 'dollars per attempt, priced from pricing.yaml; more stops it as budget_exceeded')
    .option('--max-tokens-total <n>', 'input + output tokens for the whole run; once reached no new attempt starts')
    .option('--max-cost-total <usd>', 'dollars for the whole run; once reached no new attempt starts (also across --queue workers)')
    .option('--max-test-runs <n>', 'run_tests calls per attempt')
    .option('--agent-timeout <duration>', "overrides every task's agent_timeout, e.g. 90s, 10m")
    .option(
      '--provider-stall <duration>',
      'a provider silent this long (no headers, or no bytes mid-stream) is cut off and the request counted as failed at the provider (default 5m; 0 for none)',
    )
    .addOption(new Option('--record <dir>', 'also record every model exchange as cassettes in <dir>').conflicts('replay'))
    .option('--replay <dir>', 'answer model requests from the cassettes in <dir>, offline, without API keys')
    .option('--pricing <file>', 'a pricing.yaml whose entries override the bundled prices');
}
