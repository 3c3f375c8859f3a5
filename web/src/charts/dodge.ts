/** Room kept between two stacked labels. */
const PAD = 3;

/**
 * Vertical centres for the end labels, each as near its series' last point as the labels above and
 * below allow (never closer than their heights), kept within [top, bottom]; null when they cannot
 * all fit there, and the legend alone names the series.
 */
export function dodge(wanted: ReadonlyArray<{ y: number; h: number }>, top: number, bottom: number): number[] | null {
  const order = wanted.map((w, i) => ({ ...w, i })).sort((a, b) => a.y - b.y);
  const total = order.reduce((s, w) => s + w.h + PAD, 0);
  if (total > bottom - top + PAD) return null;
  const centre = order.map((w) => w.y);
  for (let k = 0; k < order.length; k++) {
    const h = order[k]?.h ?? 0;
    const floor = k === 0 ? top + h / 2 : (centre[k - 1] ?? 0) + ((order[k - 1]?.h ?? 0) + h) / 2 + PAD;
    centre[k] = Math.max(centre[k] ?? 0, floor);
  }
  for (let k = order.length - 1; k >= 0; k--) {
    const h = order[k]?.h ?? 0;
    const ceiling = k === order.length - 1 ? bottom - h / 2 : (centre[k + 1] ?? 0) - ((order[k + 1]?.h ?? 0) + h) / 2 - PAD;
    centre[k] = Math.min(centre[k] ?? 0, ceiling);
  }
  const out: number[] = new Array<number>(wanted.length).fill(0);
  order.forEach((w, k) => (out[w.i] = centre[k] ?? w.y));
  return out;
}
