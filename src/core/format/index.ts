/** Formatting shared by the terminal, the reports and the web app, and the "did you mean" match of an id: pure, no Node APIs. */
export { count, pct, usd } from './numbers.js';
export { duration, compactDuration, type DurationStyle } from './duration.js';
export {
  cutOutput,
  cutOutputDetail,
  failureExcerpt,
  failureLine,
  isFailureLine,
  FAILURE_EXCERPT_BUDGET,
  type CutBudget,
  type CutResult,
} from './output-cut.js';
export { gatewayUsageText, usageAnomalyText } from './usage.js';
export { editDistance, nearestId, nearestIds } from './near-match.js';
export { shellWord } from './shell-word.js';
