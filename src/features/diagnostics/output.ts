import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../domain/run-dir/index.js';

/** The diagnostics Crucible runs on itself; each writes its reports under `<state>/diagnostics/<kind>/<id>/`. */
export type DiagnosticKind = 'mutations' | 'ablation' | 'fuzz' | 'matrix-stress';

export interface DiagnosticReportFiles {
  dir: string;
  json: string;
  markdown: string;
}

/**
 * Writes one diagnostic's report as `report.json` (the data, stable key order is the caller's) and
 * `report.md` (for people), each atomically, so the dashboard never reads half of one.
 */
export async function writeDiagnosticReport(
  stateDir: string,
  kind: DiagnosticKind,
  id: string,
  report: { json: unknown; markdown: string },
): Promise<DiagnosticReportFiles> {
  const dir = join(stateDir, 'diagnostics', kind, id);
  await mkdir(dir, { recursive: true });
  const json = join(dir, 'report.json');
  const markdown = join(dir, 'report.md');
  await writeFileAtomic(json, `${JSON.stringify(report.json, null, 2)}\n`);
  await writeFileAtomic(markdown, report.markdown.endsWith('\n') ? report.markdown : `${report.markdown}\n`);
  return { dir, json, markdown };
}
