/** Formatting shared by the terminal, the reports and the web app: pure, no Node APIs. */
export { count, pct, usd } from './numbers.js';
export { cutLabels, distinctLabels } from './labels.js';
