/**
 * The one reading of a request's path that the gateway both meters and forwards. A URL library
 * resolves `.` and `..`, decodes `%2e`, turns `\` into `/` and drops tabs when the upstream URL
 * is built; if the router saw the raw path and the upstream the resolved one, `/v1/./chat/completions`
 * would go unmetered and still reach the provider with the real key. So any path a resolver would
 * rewrite is refused here, before routing, and what is routed is byte for byte what is forwarded.
 */

export type PathRefusal = 'dot_segment' | 'encoded_separator' | 'empty_segment' | 'bad_character' | 'bad_encoding';

export type CanonicalPath = { ok: true; pathname: string; query: string } | { ok: false; reason: PathRefusal; message: string };

/**
 * RFC 3986 `pchar` minus percent-encoding, which is checked on its own: unreserved, sub-delims,
 * `:` and `@`. Anything else (`\`, whitespace, control characters, `"`, `<`, non-ASCII) is refused.
 */
const PLAIN_SEGMENT_CHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%]*$/;
/** Query characters: pchar plus `/` and `?`. */
const PLAIN_QUERY_CHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;
const PERCENT = /%(?![0-9A-Fa-f]{2})/;

/** Reads `req.url` (origin form: a path and an optional query; no fragment). */
export function canonicalRequestPath(url: string): CanonicalPath {
  const at = url.indexOf('?');
  const pathname = at === -1 ? url : url.slice(0, at);
  const query = at === -1 ? '' : url.slice(at);
  if (!pathname.startsWith('/')) return refuse('bad_character', 'the request path must start with /');
  if (!PLAIN_QUERY_CHAR.test(query.slice(1)) || PERCENT.test(query))
    return refuse('bad_character', 'the query string holds a character a URL parser would rewrite');
  const segments = pathname.slice(1).split('/');
  for (const [index, segment] of segments.entries()) {
    if (segment === '') {
      // One trailing slash is a different route, not a rewrite; it is refused by routing if unknown.
      if (index === segments.length - 1 && index > 0) continue;
      return refuse('empty_segment', 'repeated slashes in the request path');
    }
    if (!PLAIN_SEGMENT_CHAR.test(segment))
      return refuse('bad_character', 'the request path holds a character a URL parser would rewrite (backslash, whitespace, control or non-ASCII)');
    if (PERCENT.test(segment)) return refuse('bad_encoding', 'a malformed percent-escape in the request path');
    if (/%(2f|5c)/i.test(segment)) return refuse('encoded_separator', 'an encoded path separator (%2F or %5C) in the request path');
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return refuse('bad_encoding', 'a percent-escape in the request path that is not UTF-8');
    }
    if (decoded === '.' || decoded === '..') return refuse('dot_segment', `a dot segment ("${segment}") in the request path`);
  }
  return { ok: true, pathname, query };
}

function refuse(reason: PathRefusal, message: string): CanonicalPath {
  return { ok: false, reason, message: `${message}; send the plain path, e.g. /v1/chat/completions` };
}

/**
 * The last line of defence: the URL actually sent must carry exactly the path that was routed and
 * metered. Undefined when a URL parser would change it.
 */
export function forwardedUrl(base: string, pathWithQuery: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(base + pathWithQuery);
  } catch {
    return undefined;
  }
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  return url.pathname + url.search === basePath + pathWithQuery ? url : undefined;
}
