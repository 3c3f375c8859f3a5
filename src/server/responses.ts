import { extname } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.sarif': 'application/json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const TEXT = new Set(['.md', '.patch', '.diff', '.jsonl', '.txt', '.log', '.yaml', '.yml', '.ts', '.py', '.mjs']);

/**
 * JSON bodies of cached views, serialised once per view object: a large run's page or comparison
 * is megabytes of JSON, which would otherwise be written out again on every request.
 */
export class JsonBodies {
  private readonly bodies = new WeakMap<object, string>();

  of(view: object): string {
    let body = this.bodies.get(view);
    if (body === undefined) this.bodies.set(view, (body = JSON.stringify(view)));
    return body;
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function contentType(path: string): string {
  const ext = extname(path).toLowerCase();
  return TYPES[ext] ?? (TEXT.has(ext) ? 'text/plain; charset=utf-8' : 'application/octet-stream');
}

/** The dashboard's own pages: scripts and styles from this origin only, no framing. */
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Run files (reports, evidence) are served sandboxed: a unique origin that cannot call the API,
 * with nothing fetched from anywhere. report.html still runs, from its inline script.
 */
export const FILE_CSP =
  "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'";
