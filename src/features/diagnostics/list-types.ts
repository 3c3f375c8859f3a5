/** The dashboard's view of one diagnostics report; no imports, so the web app can share the type. */
export const DIAGNOSTIC_KINDS = ['mutations', 'ablation', 'fuzz', 'matrix-stress'] as const;

export interface DiagnosticListItem {
  kind: (typeof DIAGNOSTIC_KINDS)[number];
  id: string;
  /** From the report (createdAt), else the file's modification time. */
  createdAt: string;
  /** The report's own pass/fail (valid, ok or passed); undefined when it states none or cannot be read. */
  ok?: boolean;
  /** Its first Markdown line after the title: the summary sentence each report leads with. */
  summary: string;
  /** Relative to the state directory, e.g. diagnostics/mutations/<id>. */
  dir: string;
}
