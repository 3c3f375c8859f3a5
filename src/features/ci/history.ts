/**
 * Records a ci result in the history next to runs. A history that cannot take it (an older
 * Crucible's database, a read-only disk) costs one warning line, never the verdict: the reports
 * on disk are the result, the history is an index of them.
 */
import { join } from 'node:path';
import { openHistory } from '../../infra/store/index.js';
import { ciTitle, type CiResult } from './result.js';

export function recordCiResult(stateDir: string, result: CiResult, warn: (message: string) => void): boolean {
  try {
    const history = openHistory(join(stateDir, 'history.db'));
    try {
      history.recordEvaluation({
        id: result.id,
        kind: 'ci',
        createdAt: result.createdAt,
        verdict: result.verdict,
        title: ciTitle(result),
        reportDir: result.reportDir,
        detail: result as unknown as Record<string, unknown>,
      });
    } finally {
      history.close();
    }
    return true;
  } catch (error) {
    warn(`could not record ${result.id} in the history (${error instanceof Error ? error.message : String(error)}); its reports are in ${result.reportDir}`);
    return false;
  }
}
