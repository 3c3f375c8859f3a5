import pc from 'picocolors';
import { InputError } from '../../core/errors.js';
import type { EvaluationKind, EvaluationRecord, HistoryReader } from '../../infra/store/index.js';
import { colorVerdict, csv, table } from '../format.js';
import { asInputError } from '../history-reader.js';
import type { CliIo } from '../io.js';

/** `crucible history --evaluations` / `--kind ci|gate`: ci and gate results, newest first. */
export interface EvaluationListOptions {
  kind?: string;
  json?: boolean;
  csv?: boolean;
}

const KINDS: readonly EvaluationKind[] = ['ci', 'gate'];

export function evaluationKind(text: string | undefined): EvaluationKind | undefined {
  if (text === undefined) return undefined;
  if (!(KINDS as readonly string[]).includes(text))
    throw new InputError(`--kind ${text}: expected ci or gate (fix: --kind ci, --kind gate, or --evaluations for both)`);
  return text as EvaluationKind;
}

export const EVALUATION_CSV = ['id', 'kind', 'createdAt', 'verdict', 'title', 'runId', 'reportDir'];

export function listEvaluations(reader: HistoryReader, kind: EvaluationKind | undefined, limit: number): EvaluationRecord[] {
  return asInputError(() => reader.listEvaluations({ ...(kind ? { kind } : {}), limit }));
}

export function printEvaluations(opts: EvaluationListOptions, rows: EvaluationRecord[], io: CliIo): void {
  // JSON leaves out `detail` (the whole ci.json / gate.json): it is in reportDir for whoever needs it.
  if (opts.json)
    io.stdout.write(
      `${JSON.stringify(
        rows.map(({ detail: _detail, ...row }) => row),
        null,
        2,
      )}\n`,
    );
  else if (opts.csv) io.stdout.write(csv([EVALUATION_CSV, ...rows.map((r) => [r.id, r.kind, r.createdAt, r.verdict, r.title, r.runId ?? null, r.reportDir])]));
  else if (rows.length === 0) io.stdout.write(`${pc.dim('no ci or gate results recorded')}\n`);
  else {
    const text = table(
      ['finished', 'id', 'kind', 'result', 'title', 'report'],
      rows.map((r) => [r.createdAt.slice(0, 16).replace('T', ' '), r.id, r.kind, colorVerdict(r.verdict), r.title, r.reportDir]),
    );
    io.stdout.write(`${text}\n`);
  }
}
