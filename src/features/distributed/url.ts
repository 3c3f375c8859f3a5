import type { ConnectionOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { InputError } from '../../core/errors.js';

/** Where the queue lives: a Redis server and database, from `redis://host:port/db`. */
export interface QueueAddress {
  /** The URL as given, without credentials (there are none: they are refused). Safe to record in plan.json. */
  url: string;
  host: string;
  port: number;
  db: number;
}

/** The environment variable a Redis password is read from; a password in the URL would be written into plan.json. */
export const QUEUE_PASSWORD_ENV = 'CRUCIBLE_QUEUE_PASSWORD';

/**
 * Parses and checks a queue URL. Only `redis://` without credentials: the URL is recorded in
 * plan.json and printed, so a password goes in CRUCIBLE_QUEUE_PASSWORD instead. One-line
 * InputError naming the flag and the fix otherwise.
 */
export function parseQueueUrl(flag: string, text: string): QueueAddress {
  // A password typed into the URL is not echoed back, in any of the places one can be typed.
  const shown = maskQueueUrl(text);
  const fail = (problem: string, fix = `e.g. ${flag} redis://127.0.0.1:6379/0`): never => {
    throw new InputError(`${flag} ${shown}: ${problem} (fix: ${fix})`);
  };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail('is not a URL');
  }
  if (url.protocol !== 'redis:') fail(`expected a redis:// URL, not ${url.protocol}//`);
  if (url.username !== '' || url.password !== '')
    fail('has credentials, which would be written into plan.json and reports', `drop them from the URL and set ${QUEUE_PASSWORD_ENV}`);
  if (url.hostname === '') fail('has no host');
  if (url.search !== '' || url.hash !== '') fail('has a query or fragment, which is not read');
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,2}$/.test(path))
    fail('has a database that is not a number (a path holds no password either)', `e.g. ${flag} redis://${url.host}/0`);
  const db = path === '' ? 0 : Number(path);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { url: `redis://${url.host}/${db}`, host, port, db };
}

/**
 * A queue URL with every place a credential can sit masked: the user-info up to the *last* `@`
 * before the path (a password may itself hold `@`), every query value (`?password=`, `?auth=`),
 * the fragment, and any path past a database number (`redis://host/0/secret`, `redis://host/secret`).
 */
export function maskQueueUrl(text: string): string {
  const scheme = /^([a-z][\w+.-]*:\/\/)?/i.exec(text)?.[0] ?? '';
  let rest = text.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  if (at >= 0) rest = `***@${rest.slice(at + 1)}`;
  let tail = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    tail = '#***';
    rest = rest.slice(0, hash);
  }
  const query = rest.indexOf('?');
  if (query >= 0) {
    tail = `?${rest
      .slice(query + 1)
      .split('&')
      .map((pair) => `${pair.split('=')[0] ?? ''}=***`)
      .join('&')}${tail}`;
    rest = rest.slice(0, query);
  }
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const path = rest.slice(slash + 1);
    if (!/^\d{0,2}$/.test(path)) rest = `${rest.slice(0, slash)}/***`;
  }
  return `${scheme}${rest}${tail}`;
}

/**
 * ioredis options for BullMQ: `maxRetriesPerRequest: null` (BullMQ requires it) makes commands wait
 * through a Redis restart instead of failing, and reconnecting never gives up.
 */
export function redisOptions(address: QueueAddress, env: Readonly<Record<string, string | undefined>> = process.env): RedisOptions {
  const password = env[QUEUE_PASSWORD_ENV];
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(password ? { password } : {}),
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(200 * times, 2_000),
  };
}

/** The same options typed for BullMQ, which declares its own (structurally equal) option type. */
export function bullConnection(address: QueueAddress): ConnectionOptions {
  const { retryStrategy: _retry, ...rest } = redisOptions(address);
  return { ...rest, retryStrategy: (times: number) => Math.min(200 * times, 2_000) };
}
