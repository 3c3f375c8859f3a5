/**
 * Accounting for the fields of an imported task: which ones Crucible did not map, so an import
 * names every one of them instead of dropping it silently.
 */

/**
 * Every field of `doc` (by dotted path) that is not in `mapped` and does not hold a mapped field:
 * `{ metadata: { difficulty, author_name } }` with `metadata.difficulty` mapped gives
 * `metadata.author_name`. A table none of whose fields is mapped is named whole.
 */
export function unmappedFields(doc: Record<string, unknown>, mapped: ReadonlySet<string>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    const path = `${prefix}${key}`;
    if (mapped.has(path)) continue;
    const holdsMapped = [...mapped].some((m) => m.startsWith(`${path}.`));
    if (holdsMapped && typeof value === 'object' && value !== null && !Array.isArray(value))
      out.push(...unmappedFields(value as Record<string, unknown>, mapped, `${path}.`));
    else out.push(path);
  }
  return out;
}

/** The images a Dockerfile's FROM lines name, stages it builds itself left out. */
export function dockerfileBaseImages(dockerfile: string): string[] {
  const stages = new Set<string>();
  const images: string[] = [];
  for (const line of dockerfile.split('\n')) {
    const match = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (!match) continue;
    const image = match[1] as string;
    if (!stages.has(image.toLowerCase()) && !images.includes(image)) images.push(image);
    if (match[2] !== undefined) stages.add(match[2].toLowerCase());
  }
  return images;
}
