/**
 * The id among `known` that `wanted` most likely meant, for a "did you mean" fix: the one that
 * differs by the fewest edits, when the difference is small next to the id's length (a typo, a
 * changed file path or class name). Undefined when nothing is that close.
 */
export function nearestId(wanted: string, known: Iterable<string>): string | undefined {
  return nearestIds(wanted, known, 1)[0];
}

/**
 * Up to `max` ids of `known` close enough to `wanted` (see {@link nearestId}), nearest first, ties
 * in the order given. Costs one banded edit distance per known id (length × bound), so a run that
 * reports thousands of ids is still answered at once.
 */
export function nearestIds(wanted: string, known: Iterable<string>, max: number): string[] {
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  const wantedLast = lastSegment(wanted);
  const close: Array<{ id: string; distance: number }> = [];
  for (const id of new Set(known)) {
    const distance = editDistance(wanted, id, limit);
    // A test named the same in another file or class is a likelier fix than an unrelated near-spelling.
    const scored = distance > limit && lastSegment(id) === wantedLast ? limit : distance;
    // Replacing every character is no near match ("a" for "f").
    if (scored <= limit && scored < Math.max(wanted.length, id.length)) close.push({ id, distance: scored });
  }
  // A stable sort keeps the given order among equals.
  return close
    .sort((a, b) => a.distance - b.distance)
    .slice(0, max)
    .map((c) => c.id);
}

/**
 * The test's own name: after the last `::`, `#`, ` > ` or `/`, or (in an id with no spaces, like
 * `pkg.Class.method`) the last `.`. Never a word of a sentence-like name: "parses a date" and
 * "formats a date" are different tests, not one test moved.
 */
function lastSegment(id: string): string {
  const separators = /\s/.test(id) ? /::|#| > |\// : /::|#|\/|\./;
  return id.split(separators).filter(Boolean).pop() ?? id;
}

/**
 * Levenshtein distance, or anything above `cap` once the distance is sure to exceed it. Only cells
 * within `cap` of the diagonal are computed: any path outside that band costs more than `cap`.
 */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const over = cap + 1;
  // Two rows, reused: only the band's cells and its two edges are ever read.
  let previous = Array.from({ length: b.length + 1 }, (_, j) => (j <= cap ? j : over));
  let current = new Array<number>(b.length + 1).fill(over);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - cap);
    const to = Math.min(b.length, i + cap);
    current[from - 1] = from === 1 && i <= cap ? i : over;
    if (to === i + cap) previous[to] = over;
    let rowMin = current[from - 1] as number;
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost, over);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > cap) return over;
    [previous, current] = [current, previous];
  }
  return previous[b.length] as number;
}
