/**
 * Short labels for a set of names (agents in a chart's narrow axis) that stay unique. A name that
 * fits is kept whole; a longer one keeps its end (where model names differ: size, variant, date),
 * and as much of its start as it takes for no two labels to read the same:
 * `openai-compatible:qwen3-coder-plus` and `…-flash` become `…qwen3-coder-plus` and
 * `…qwen3-coder-flash`, never two `openai-compat…`. When no split of that
 * length tells every name apart, every name is kept whole (a wide label beats an ambiguous one).
 * Callers show the full name beside a cut label (a title, a legend: see `cutLabels`).
 */
export function distinctLabels(names: readonly string[], max: number): Map<string, string> {
  const unique = [...new Set(names)];
  const whole = new Map(unique.map((n) => [n, n]));
  if (max < 3 || unique.every((n) => n.length <= max)) return whole;
  // The shortest head that works: a provider prefix is usually shared, the end tells models apart.
  for (let head = 0; head < max - 1; head++) {
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
