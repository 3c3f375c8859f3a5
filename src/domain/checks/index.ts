/** Policy checks: one file per check, a typed registry, and the policy each one applies. */
export { CHECKS, runChecks } from './registry.js';
export { effectivePolicy, PRESETS, type EffectivePolicy } from './policy.js';
export { UNSAFE_RULES } from './unsafe-command-rules.js';
export { RUNNER_ANALYSES, RUNNER_INTERNALS_RULES } from './runner-internals-rules.js';
export { describeFailing } from './describe.js';
export type { Check, CheckInput, CheckOutcome } from './types.js';
export { detectContent, type ContentFinding, type ContentScan } from './content-scan.js';
export { userRule, type UnsafeRule, type WriteRoots } from './unsafe-command-rules.js';
export { tokenizeJs, type JsToken } from './js-tokens.js';
export { tokenizePython, type PyToken } from './py-writes.js';
export { matching as matchingBracket } from './bracket-spans.js';
