import { createHash } from 'node:crypto';

/**
 * `value` with every object's keys in sorted order (code-point order, the same on every machine and
 * locale) and `undefined` members dropped, so two equal values always serialize to the same bytes.
 */
export function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : canonicalize(v)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(byCodePoint)) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = canonicalize(member);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`canonical JSON has no form for ${value}`);
  return value;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Canonical JSON: sorted keys, no `undefined`. `indent` 0 gives the compact form hashes are taken
 * over; manifests are written with 2 for people, and hashed as the bytes written.
 */
export function canonicalJson(value: unknown, indent = 0): string {
  return JSON.stringify(canonicalize(value), null, indent);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
