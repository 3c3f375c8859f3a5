import { firstMatch } from '../evidence/index.js';
import { contentOf } from './content-of.js';
import { SECRET_DETECTORS } from '../../core/redact/index.js';
import { capped, fail, listShort, pass, type Check } from './types.js';

interface Finding {
  detector: string;
  file: string;
  line?: number;
}

/**
 * Secrets in what the agent added: path patterns over changed files, the task's literal strings
 * and the opted-in detector presets over added lines only. Evidence names detector, file and line,
 * never the value. A scan that could not read everything fails, whatever it found.
 * Judging only: detection over the lines is checks/content-scan.ts, so a replayed trace (which
 * holds findings, not lines) is judged by this same code.
 */
export const secretsCheck: Check = {
  id: 'secrets',
  description: 'no secret (path pattern, literal, enabled detector preset) in added lines or files',
  run(input) {
    const { paths, literals, presets } = input.policy.secrets;
    const detectors = SECRET_DETECTORS.filter((d) => presets.includes(d.preset));
    const pathPatterns = [...paths, ...detectors.flatMap((d) => d.paths ?? [])];
    if (detectors.length === 0 && literals.length === 0 && pathPatterns.length === 0) {
      return pass('no secret detectors enabled (policy.secrets)', { skipped: true });
    }
    const findings: Finding[] = [];
    for (const change of input.diff.files) {
      if (change.kind === 'deleted') continue;
      const pattern = firstMatch(change.path, pathPatterns);
      if (pattern !== undefined) findings.push({ detector: 'path', file: change.path });
    }
    const enabled = new Set(detectors.map((d) => d.id));
    const scan = contentOf(input);
    for (const f of scan?.findings ?? []) {
      if ((f.kind === 'secret' && enabled.has(f.detector)) || f.kind === 'literal') findings.push({ detector: f.detector, file: f.path, line: f.line });
    }
    const evidence = {
      presets,
      detectors: detectors.length,
      literals: literals.length,
      filesScanned: scan?.files.length ?? 0,
      complete: scan?.complete ?? false,
      findings: capped(findings),
      ...(scan?.incomplete ? { incomplete: scan.incomplete } : {}),
    };
    if (findings.length > 0) {
      return fail(`possible secrets added: ${listShort(findings.map((f) => `${f.detector} in ${f.file}${f.line ? `:${f.line}` : ''}`))}`, evidence);
    }
    if (!scan || !scan.complete) return fail(`secret scan incomplete: ${scan?.incomplete ?? 'no added lines to scan'}`, evidence);
    return pass(`no secrets in ${scan.files.length} changed file(s)`, evidence);
  },
};
