/**
 * The image the final stage of a Dockerfile starts FROM, stage names followed back to their base
 * (`FROM x AS a` … `FROM a`); undefined when it cannot be told (no FROM, an ARG in the name).
 */
export function finalBase(dockerfile: string): string | undefined {
  const stages = new Map<string, string>();
  let last: string | undefined;
  // Line continuations joined first: `FROM \` on one line and the image on the next is legal.
  for (const line of dockerfile.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const match = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$/i.exec(line);
    if (!match) continue;
    const image = match[1] as string;
    const base = stages.get(image.toLowerCase()) ?? image;
    if (match[2]) stages.set(match[2].toLowerCase(), base);
    last = base;
  }
  return last === undefined || last.includes('$') ? undefined : last;
}
