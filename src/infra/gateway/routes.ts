export interface SessionRoute {
  token: string;
  upstream: string;
  /** Everything after the upstream name, query included; `/` when empty. */
  path: string;
}

const SESSION_ROUTE = /^\/s\/([A-Za-z0-9_-]+)\/([a-z0-9][a-z0-9_-]*)(\/[^?#]*)?(\?[^#]*)?$/;

/** Parses `/s/<token>/<upstream>/<path>`, the only shape of URL the gateway serves. */
export function parseSessionRoute(url: string | undefined): SessionRoute | undefined {
  const match = SESSION_ROUTE.exec(url ?? '');
  if (!match) return undefined;
  const [, token = '', upstream = '', pathname, query] = match;
  return { token, upstream, path: (pathname || '/') + (query ?? '') };
}
