/**
 * The diagnostics reports under `<state>/diagnostics/<kind>/<id>/report.json`, newest first, for
 * the dashboard. Read without following symlinks (a report directory is data, like a run's); a
 * report that cannot be read is listed as unreadable rather than hiding the rest.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DIAGNOSTIC_KINDS, type DiagnosticListItem } from './list-types.js';
import type { DiagnosticKind } from './output.js';

export { DIAGNOSTIC_KINDS, type DiagnosticListItem };

// Every kind writeDiagnosticReport can write is listed (a compile error otherwise).
const ALL_KINDS: readonly DiagnosticKind[] = DIAGNOSTIC_KINDS;
type Unlisted = Exclude<DiagnosticKind, (typeof DIAGNOSTIC_KINDS)[number]>;
const everyKindListed: [Unlisted] extends [never] ? true : never = true;
void everyKindListed;

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export async function listDiagnostics(stateDir: string, limit = 50): Promise<DiagnosticListItem[]> {
  const items: DiagnosticListItem[] = [];
  for (const kind of ALL_KINDS) {
    const kindDir = join(stateDir, 'diagnostics', kind);
    if (!(await isRealDir(kindDir))) continue;
    for (const id of await readdir(kindDir)) {
      if (!SAFE_NAME.test(id) || !(await isRealDir(join(kindDir, id)))) continue;
      items.push(await itemOf(kind, id, join(kindDir, id)));
    }
  }
  return items.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id)).slice(0, limit);
}

async function itemOf(kind: DiagnosticKind, id: string, dir: string): Promise<DiagnosticListItem> {
  const base = { kind, id, dir: `diagnostics/${kind}/${id}` };
  const jsonFile = join(dir, 'report.json');
  const info = await lstat(jsonFile).catch(() => undefined);
  if (!info?.isFile()) return { ...base, createdAt: '', summary: 'no report.json' };
  const fallbackTime = info.mtime.toISOString();
  try {
    const report = JSON.parse(await readFile(jsonFile, 'utf8')) as Record<string, unknown>;
    const markdown = await readFile(join(dir, 'report.md'), 'utf8').catch(() => '');
    const summary = markdown.split('\n').find((line, i) => i > 0 && line.trim() !== '') ?? '';
    // fuzz states its outcome as a verdict (agree / disagree), the others as a boolean.
    const verdict = report.verdict === 'agree' ? true : report.verdict === 'disagree' ? false : undefined;
    const stated = [report.valid, report.ok, report.passed, verdict].find((v) => typeof v === 'boolean');
    return {
      ...base,
      createdAt: typeof report.createdAt === 'string' ? report.createdAt : fallbackTime,
      ...(typeof stated === 'boolean' ? { ok: stated } : {}),
      summary: summary.replace(/\*\*/g, '').slice(0, 300),
    };
  } catch {
    return { ...base, createdAt: fallbackTime, summary: 'report.json cannot be read' };
  }
}

async function isRealDir(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isDirectory() ?? false;
}
