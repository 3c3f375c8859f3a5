/**
 * The id among `known` that `wanted` most likely meant, for a "did you mean" fix: the one that
 * differs by the fewest edits, when the difference is small next to the id's length (a typo, a
 * changed file path or class name). Undefined when nothing is that close.
 */
export function nearestId(wanted: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  let best: { id: string; distance: number } | undefined;
  for (const id of new Set(known)) {
    // A test named the same in another file or class is a likelier fix than an unrelated near-spelling.
    const distance = lastSegment(id) === lastSegment(wanted) ? Math.min(editDistance(wanted, id, limit), limit) : editDistance(wanted, id, limit);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { id, distance };
  }
  return best?.id;
}

function lastSegment(id: string): string {
  return (
    id
      .split(/::|\.|#|\s/)
      .filter(Boolean)
      .pop() ?? id
  );
}

/** Levenshtein distance, or anything above `cap` once the distance is sure to exceed it. */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > cap) return cap + 1;
    previous = current;
  }
  return previous[b.length] as number;
}
