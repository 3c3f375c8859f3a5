/**
 * Short labels for a set of names (agents in a chart's narrow axis) that stay unique. A name that
 * fits is kept whole; a longer one keeps its start and its end with `…` between, the split chosen
 * so no two labels read the same: `openai-compatible:qwen3-coder-plus` and `…-flash` become
 * `openai-…coder-plus` and `openai-…oder-flash`, never two `openai-compat…`. When no split of that
 * length tells every name apart, every name is kept whole (a wide label beats an ambiguous one).
 * Callers show the full name beside a cut label (a title, a legend: see `cutLabels`).
 */
export function distinctLabels(names: readonly string[], max: number): Map<string, string> {
  const unique = [...new Set(names)];
  const whole = new Map(unique.map((n) => [n, n]));
  if (max < 3 || unique.every((n) => n.length <= max)) return whole;
  // Start with a short head (a provider prefix is usually shared), then try every other split.
  const preferred = Math.max(1, Math.floor((max - 1) * 0.4));
  const heads = [preferred, ...Array.from({ length: max - 1 }, (_, i) => i).filter((h) => h !== preferred)];
  for (const head of heads) {
    const labels = new Map(unique.map((n) => [n, n.length > max ? cut(n, head, max) : n]));
    if (new Set(labels.values()).size === unique.length) return labels;
  }
  return whole;
}

/** The names whose label is not the name itself, in the given order: what a legend must spell out. */
export function cutLabels(labels: ReadonlyMap<string, string>): Array<{ name: string; label: string }> {
  return [...labels].filter(([name, label]) => name !== label).map(([name, label]) => ({ name, label }));
}

function cut(name: string, head: number, max: number): string {
  const tail = max - 1 - head;
  return `${name.slice(0, head)}…${tail > 0 ? name.slice(-tail) : ''}`;
}
