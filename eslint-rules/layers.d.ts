import type { Rule } from 'eslint';

/** The options of `crucible/layers` (eslint.config.js `layers`). */
export interface LayersOptions {
  root: string;
  /** Lowest first. A layer with a `dir` keeps its folders in `<root>/<dir>/`. */
  layers: Array<{ name: string; dir?: string; folders: string[] }>;
  exceptions?: Array<{ from: string; to: string; kind: 'upward' | 'cycle' | 'deep'; until?: string; why: string }>;
}

declare const rule: Rule.RuleModule;
export default rule;
