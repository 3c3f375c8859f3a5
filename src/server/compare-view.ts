import type { CellDelta } from '../core/types/index.js';
import type { CompareView } from '../features/report/index.js';

/** Comparisons the server keeps (per pair of run versions); each is at most a few hundred KB. */
export const COMPARISONS_KEPT = 16;

/** Cell rows a comparison page lists; `crucible compare` prints them all. */
export const COMPARE_CELLS_SHOWN = 500;

/**
 * A comparison as the dashboard sends it: every verdict and rate, and the cells that changed first
 * (worse, then better, then the rest), cut to COMPARE_CELLS_SHOWN with the totals beside them. Two
 * runs of 25 000 cells each were 6 MB on every comparison page.
 */
export function shownComparison(view: CompareView): CompareView {
  const { cells, regressions, improvements } = view.comparison;
  if (cells.length <= COMPARE_CELLS_SHOWN) return view;
  const changed = new Set<CellDelta>([...regressions, ...improvements]);
  const shown = [...regressions, ...improvements, ...cells.filter((c) => !changed.has(c))].slice(0, COMPARE_CELLS_SHOWN);
  return {
    ...view,
    comparison: {
      ...view.comparison,
      cells: shown,
      regressions: regressions.slice(0, COMPARE_CELLS_SHOWN),
      improvements: improvements.slice(0, COMPARE_CELLS_SHOWN),
    },
    totals: { cells: cells.length, regressions: regressions.length, improvements: improvements.length },
  };
}
