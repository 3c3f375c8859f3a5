/**
 * One line for usage a provider reported that contradicts itself, the same in the terminal and
 * the reports: how many responses, the first contradictions, and that the counts are as reported.
 */
/**
 * One line for what the model gateway refused or saw answer, when it is worth a look: refused
 * requests (by reason, first message) and, when more than one model answered, each with its count.
 */
export function gatewayUsageText(usage: {
  refused?: { requests: number; reasons: Record<string, number>; examples: readonly string[] };
  models?: Record<string, number>;
}): string | undefined {
  const parts: string[] = [];
  const refused = usage.refused;
  if (refused && refused.requests > 0) {
    const reasons = Object.entries(refused.reasons)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ');
    parts.push(
      `gateway refused ${refused.requests} request${refused.requests === 1 ? '' : 's'} (${reasons})${refused.examples[0] ? `: ${refused.examples[0]}` : ''}`,
    );
  }
  const models = Object.entries(usage.models ?? {});
  if (models.length > 1) parts.push(`answered by ${models.map(([model, n]) => `${model} ×${n}`).join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

export function usageAnomalyText(anomalies: { responses: number; examples: readonly string[] }): string {
  const n = anomalies.responses;
  return `usage contradicts itself in ${n} response${n === 1 ? '' : 's'}: ${anomalies.examples.join('; ')} (counts and cost as the provider reported them, not corrected)`;
}
