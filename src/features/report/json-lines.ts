/** A JSON object, as a line of a trajectory or log holds one. */
export type JsonObject = Record<string, unknown>;

export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON objects of a JSON Lines text, in order, and how many non-blank lines were not one (a
 * line cut short by a crash, a stray value): readers count those instead of throwing.
 */
export function jsonObjectLines(text: string): { objects: JsonObject[]; unreadable: number } {
  const objects: JsonObject[] = [];
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      unreadable += 1;
      continue;
    }
    if (isJsonObject(parsed)) objects.push(parsed);
    else unreadable += 1;
  }
  return { objects, unreadable };
}
