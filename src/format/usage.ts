/**
 * One line for usage a provider reported that contradicts itself, the same in the terminal and
 * the reports: how many responses, the first contradictions, and that the counts are as reported.
 */
export function usageAnomalyText(anomalies: { responses: number; examples: readonly string[] }): string {
  const n = anomalies.responses;
  return `usage contradicts itself in ${n} response${n === 1 ? '' : 's'}: ${anomalies.examples.join('; ')} (counts and cost as the provider reported them, not corrected)`;
}
