import type { Agent, ModelLimits } from '../domain/agents/index.js';
import { OptionError } from '../core/errors.js';
import { outputBound, smallestReservation, type Pricing, type Reservation } from '../infra/gateway/index.js';
import type { RunLimits } from './run-budget.js';

interface Cap {
  field: string;
  kind: 'tokens' | 'cost';
  limit: number | undefined;
}

/**
 * A budget below the worst case of the smallest request an agent can send (reservation.ts, the
 * estimate the gateway refuses or holds requests by) lets no request fit: the attempt budgets
 * refuse every one up front, and a run cap would be passed by its first request. Said before any
 * attempt starts, naming the option, the worst case and the fix. An agent that may set its own
 * output limit (an external program) is held to an empty request; one whose requests set none, to
 * the model's documented maximum output. The cost floor is the agent's own model's: an agent whose
 * other models are served may send cheaper requests, so only its token floor is checked.
 */
export function checkSmallestRequests(agents: readonly Agent[], pricing: Pricing, limits: Partial<ModelLimits>, runLimits: RunLimits | undefined): void {
  const caps: Cap[] = [
    { field: 'models.limits.maxTokens', kind: 'tokens', limit: limits.maxTokens },
    { field: 'models.limits.maxCostUsd', kind: 'cost', limit: limits.maxCostUsd },
    { field: 'models.runLimits.maxTokens', kind: 'tokens', limit: runLimits?.maxTokens },
    { field: 'models.runLimits.maxCostUsd', kind: 'cost', limit: runLimits?.maxCostUsd },
  ];
  for (const agent of agents) {
    if (agent.modelSpec === undefined) continue;
    const unbounded = agent.setsNoOutputLimit === true;
    const floor = smallestReservation(agent.modelSpec.modelId, pricing, unbounded ? undefined : 0);
    for (const cap of caps) {
      if (cap.limit === undefined) continue;
      const need = cap.kind === 'tokens' ? floor.tokens : agent.otherModels === 'serve' ? undefined : floor.costUsd;
      if (need === undefined || need <= cap.limit) continue;
      const amount = cap.kind === 'tokens' ? `${need} tokens` : `$${roundUp(need)}`;
      throw new OptionError(
        [{ field: cap.field, value: cap.kind === 'cost' ? `$${cap.limit}` : String(cap.limit) }],
        `the smallest request agent ${agent.name} can send may ${cap.kind === 'tokens' ? 'use' : 'cost'} up to ${amount} (${floorBound(floor, unbounded)}), so no request fits`,
        `raise {${cap.field}} to at least ${cap.kind === 'tokens' ? need : `$${roundUp(need)}`}${unbounded ? ', or use a model with a smaller documented maximum output' : ''}`,
      );
    }
  }
}

function floorBound(floor: Reservation, unbounded: boolean): string {
  return unbounded
    ? outputBound(floor).replace("the request's size", 'an empty request')
    : `an empty request: the provider's ${floor.tokens}-token prompt overhead`;
}

/** Up to the next micro-dollar, so that the amount the fix names is enough. */
function roundUp(usd: number): number {
  return Math.ceil(usd * 1e6) / 1e6;
}
