/**
 * `crucible diagnostics mutations` and `ablation` end to end: load the catalogue, choose the
 * sandbox, execute every entry once, judge (or ablate), write the report under
 * `<out>/diagnostics/<kind>/<id>/`. The CLI only parses flags and prints.
 */
import { randomBytes } from 'node:crypto';
import { InputError } from '../../core/errors.js';
import { resolveSandbox, type SandboxKind } from '../../infra/sandbox/index.js';
import { CHECK_IDS, type CheckId } from '../../core/types/index.js';
import { ablate, type Ablation } from './ablation.js';
import { ablationReport, mutationsReport, type AuditMeta } from './audit-report.js';
import { loadCatalogFile, shippedCatalog } from './mutations-catalog.js';
import { judge, type Judgement } from './mutations-judge.js';
import { executeCatalog } from './mutations-run.js';
import { writeDiagnosticReport, type DiagnosticReportFiles } from './output.js';

export interface AuditOptions {
  catalog?: string;
  /** Crucible's state directory. */
  out: string;
  sandbox?: SandboxKind;
  concurrency?: number;
  warn?: (message: string) => void;
  onEntry?: (done: number, total: number, id: string) => void;
}

export interface MutationsOutcome {
  report: { json: unknown; markdown: string };
  files: DiagnosticReportFiles;
  judgement: Judgement;
}

export interface AblationOutcome {
  report: { json: unknown; markdown: string };
  files: DiagnosticReportFiles;
  ablation: Ablation;
}

export async function runMutations(options: AuditOptions & { disable?: string[] }): Promise<MutationsOutcome> {
  const disabled = checkIds(options.disable ?? []);
  const { meta, evidence } = await execute(options, 'mut');
  const judgement = judge(evidence, new Set(disabled));
  const report = mutationsReport(meta, judgement, disabled);
  const files = await writeDiagnosticReport(options.out, 'mutations', meta.id, report);
  return { report, files, judgement };
}

export async function runAblation(options: AuditOptions): Promise<AblationOutcome> {
  const { meta, evidence } = await execute(options, 'abl');
  const ablation = ablate(evidence);
  const report = ablationReport(meta, ablation);
  const files = await writeDiagnosticReport(options.out, 'ablation', meta.id, report);
  return { report, files, ablation };
}

async function execute(options: AuditOptions, prefix: string): Promise<{ meta: AuditMeta; evidence: Awaited<ReturnType<typeof executeCatalog>> }> {
  const catalog = options.catalog === undefined ? shippedCatalog() : loadCatalogFile(options.catalog);
  // The fixtures' tests are ours: they may fall back, as in `crucible ci`.
  const chosen = await resolveSandbox(options.sandbox, { allowFallback: true, unsandboxed: "the fixtures' tests run" });
  if (chosen.warning) (options.warn ?? ((m) => process.stderr.write(`warning ${m}\n`)))(chosen.warning);
  const sandbox = chosen.kind;
  const createdAt = new Date();
  const evidence = await executeCatalog(catalog, {
    sandbox,
    stateDir: options.out,
    concurrency: options.concurrency ?? 2,
    ...(options.onEntry ? { onEntry: (done: number, total: number, entry: { id: string }) => options.onEntry?.(done, total, entry.id) } : {}),
  });
  return { meta: { id: diagnosticId(prefix, createdAt), createdAt: createdAt.toISOString(), catalog: catalog.source, sandbox }, evidence };
}

/** `--disable-check` values, each a check id (an unknown one is bad input naming the ids). */
function checkIds(values: readonly string[]): CheckId[] {
  for (const value of values) {
    if (!(CHECK_IDS as readonly string[]).includes(value))
      throw new InputError(`--disable-check ${value}: no such check (fix: use one of ${CHECK_IDS.join(', ')})`);
  }
  return CHECK_IDS.filter((id) => values.includes(id));
}

function diagnosticId(prefix: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${prefix}-${stamp}-${randomBytes(3).toString('hex')}`;
}
