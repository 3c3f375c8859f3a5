/** Writes rows (arrays of strings) as CSV text, one line per row. */
export function formatCsv(rows) {
  return rows.map((row) => row.join(',')).join('\n');
}
