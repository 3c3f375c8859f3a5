import { OptionError } from '../core/errors.js';

/**
 * The engine names its options by field (`trials`, `selection`'s `taskIds`, `models.baseUrl`);
 * the CLI's users know them by flag. Errors thrown by the engine pass through here on their way out.
 */
const FLAGS: Readonly<Record<string, string>> = {
  trials: '--runs',
  stateDir: '--out',
  runId: 'run',
  'resume.runId': 'run',
  'resume.force': '--force',
  concurrency: '--concurrency',
  agents: '--agent',
  taskIds: '--task',
  tags: '--tag',
  categories: '--category',
  difficulties: '--difficulty',
  'models.baseUrl': '--base-url',
  'models.baseUrls': '--base-url',
  'models.pricingFile': '--pricing',
  'models.limits.maxCostUsd': '--max-cost',
  'models.limits.maxTurns': '--max-turns',
  'models.limits.maxTokens': '--max-tokens',
  'models.runLimits.maxTokens': '--max-tokens-total',
  'models.runLimits.maxCostUsd': '--max-cost-total',
  'models.agentTimeoutMs': '--agent-timeout',
};

/** The flag for an option field; `models.cassetteDir` is `--record` or `--replay`, by the mode in use. */
export function flagOf(field: string, mode: 'record' | 'replay' = 'replay'): string {
  if (field === 'models.cassetteDir') return `--${mode}`;
  return FLAGS[field] ?? field;
}

/** Runs `work`; an OptionError it throws comes out with flag names instead of field names. */
export function withFlagNames<T>(work: () => T, mode?: 'record' | 'replay'): T {
  try {
    const result = work();
    if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(renamed(error, mode))) as T;
    return result;
  } catch (error) {
    throw renamed(error, mode);
  }
}

function renamed(error: unknown, mode: 'record' | 'replay' | undefined): unknown {
  return error instanceof OptionError ? error.renamed((field) => flagOf(field, mode)) : error;
}
