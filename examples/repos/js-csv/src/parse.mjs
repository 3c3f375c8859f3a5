/** Reads CSV text into rows (arrays of strings). */
export function parseCsv(text) {
  if (text === '') return [];
  return text.split('\n').map((line) => line.split(','));
}
