import { globToRegExp } from '../../evidence/index.js';
import type { AgentContext } from '../agent.js';
import { LOCATE_SCRIPT, runNodeScript, type TestLocation } from './script.js';

/** Every fail-to-pass test's definition, or an error naming the ones that could not be found. */
export async function locateFailToPass(ctx: AgentContext): Promise<{ ok: true; value: TestLocation[] } | { ok: false; error: string }> {
  const ids = ctx.task.tests.failToPass;
  const found = await runNodeScript<TestLocation[]>(ctx, LOCATE_SCRIPT, { ids, testPathRegexes: ctx.task.tests.testPaths.map((p) => globToRegExp(p).source) });
  if (!found.ok) return found;
  const missing = ids.filter((id) => !found.value.some((l) => l.id === id));
  if (missing.length > 0) return { ok: false, error: `cannot find the definition of ${missing.join(', ')} in the test files` };
  return found;
}
