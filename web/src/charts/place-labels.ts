/*
 * Where to write each point's label so that no two labels, and no label and another point, touch:
 * a few positions around the point are tried in turn, and a label with no free position is not
 * written inline at all (the chart's legend names every series).
 */

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface PointLabel {
  id: string;
  /** The point's centre and radius. */
  x: number;
  y: number;
  r: number;
  /** The label's measured size. */
  width: number;
  height: number;
}

export interface Placement {
  /** Where the text starts (text-anchor start) and its baseline. */
  x: number;
  baseline: number;
  box: Box;
}

/** Room kept between two labels, and between a label and a point. */
const PAD = 2;
const OFFSET = 6;

const overlaps = (a: Box, b: Box): boolean =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > -PAD && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > -PAD;

const inside = (a: Box, bounds: Box): boolean => a.left >= bounds.left && a.right <= bounds.right && a.top >= bounds.top && a.bottom <= bounds.bottom;

/** Candidate boxes around a point, nearest first: right, left, above, below, then farther out. */
function candidates(p: PointLabel): Box[] {
  const gap = p.r + OFFSET;
  const right = p.x + gap;
  const left = p.x - gap - p.width;
  const centred = p.x - p.width / 2;
  const mid = p.y - p.height / 2;
  const starts: Array<[number, number]> = [
    [right, mid],
    [left, mid],
    [centred, p.y - gap - p.height],
    [centred, p.y + gap],
    [right, p.y - gap - p.height / 2],
    [right, p.y + gap - p.height / 2],
    [left, p.y - gap - p.height / 2],
    [left, p.y + gap - p.height / 2],
  ];
  for (let step = 1; step <= 4; step++) {
    const dy = step * (p.height + PAD);
    starts.push([right, mid - dy], [right, mid + dy], [left, mid - dy], [left, mid + dy]);
  }
  return starts.map(([l, t]) => ({ left: l, top: t, right: l + p.width, bottom: t + p.height }));
}

/**
 * A free position for each label, in the order given (earlier labels win), inside `bounds` and
 * clear of the points and of `obstacles` (other marks: interval lines); null for a label with none.
 * `ascent` is how far a label's baseline sits below the top of its box.
 */
export function placeLabels(points: readonly PointLabel[], bounds: Box, ascent: number, obstacles: readonly Box[] = []): Map<string, Placement | null> {
  const marks: Box[] = [...points.map((p) => ({ left: p.x - p.r, top: p.y - p.r, right: p.x + p.r, bottom: p.y + p.r })), ...obstacles];
  const taken: Box[] = [];
  const out = new Map<string, Placement | null>();
  for (const p of points) {
    const free = candidates(p).find((box) => inside(box, bounds) && !taken.some((t) => overlaps(t, box)) && !marks.some((m) => overlaps(m, box)));
    if (free) taken.push(free);
    out.set(p.id, free ? { x: free.left, baseline: free.top + ascent, box: free } : null);
  }
  return out;
}
