import { posix } from 'node:path';

/**
 * Why an entry name from an archive cannot be a pack path, or undefined when it can. A pack path
 * is relative, '/'-separated, NFC, without '.', '..' or empty segments, drive letters,
 * backslashes or control characters: one name means one place on every filesystem.
 */
export function badPackPath(name: string): string | undefined {
  if (name.length === 0) return 'an empty name';
  if (name.startsWith('/')) return 'an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'a drive-letter path';
  if (name.includes('\\')) return 'a backslash in the name';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a control character in the name';
  if (name.endsWith('/')) return 'a directory entry (packs list files only)';
  const segments = name.split('/');
  if (segments.includes('..')) return 'a ".." segment';
  if (segments.includes('.') || segments.includes('')) return 'a "." or empty segment';
  if (name.normalize('NFC') !== name) return 'a name not in Unicode NFC form';
  return undefined;
}

/** Names that collide on a case-insensitive or normalizing filesystem (macOS, Windows) share this key. */
export function foldedName(name: string): string {
  return name.normalize('NFKC').toLowerCase().normalize('NFKC');
}

/** Decodes a raw zip entry name: UTF-8 (flag 0x800 or plain ASCII), strictly; anything else is undefined. */
export function decodeEntryName(raw: Buffer, utf8Flag: boolean): string | undefined {
  const ascii = raw.every((byte) => byte < 0x80);
  if (!utf8Flag && !ascii) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * Resolves `target` of the symlink at `linkPath` inside the pack, following other symlinks of the
 * pack, and says where it lands: a pack path ('' is the root) or undefined when it leaves the pack
 * at any step, is absolute, or loops. Lexical checks alone miss a link that climbs out through another link.
 */
export function resolveInPack(linkPath: string, target: string, links: ReadonlyMap<string, string>): string | undefined {
  if (target.length === 0 || target.startsWith('/') || target.includes('\\') || /^[A-Za-z]:/.test(target)) return undefined;
  let hops = 0;
  const walk = (base: string[], rel: string): string[] | undefined => {
    const out = [...base];
    for (const segment of rel.split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        if (out.length === 0) return undefined;
        out.pop();
        continue;
      }
      out.push(segment);
      const next = links.get(out.join('/'));
      if (next !== undefined) {
        if (++hops > 40) return undefined;
        if (next.startsWith('/') || next.includes('\\')) return undefined;
        out.pop();
        const landed = walk(out, next);
        if (landed === undefined) return undefined;
        out.splice(0, out.length, ...landed);
      }
    }
    return out;
  };
  const landed = walk(posix.dirname(linkPath) === '.' ? [] : posix.dirname(linkPath).split('/'), target);
  return landed?.join('/');
}
