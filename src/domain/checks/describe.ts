import type { TestGroupOutcome } from '../../core/types/index.js';

/** `a (failed), b (missing; did you mean "b1"?)`, capped so a report line stays a line. */
export function describeFailing(failing: TestGroupOutcome['failing'], max = 5): string {
  const shown = failing.slice(0, max).map((f) => `${f.id} (${f.reason}${f.near?.length ? `; did you mean ${f.near.map((n) => `"${n}"`).join(' or ')}?` : ''})`);
  if (failing.length > max) shown.push(`… ${failing.length - max} more`);
  return shown.join(', ') || 'none';
}
