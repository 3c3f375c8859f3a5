import { HistoryError } from './errors.js';
import type { Page, PageRequest } from './queries.js';

/** Bounds what one call can pull into memory, so no caller loads the whole history by accident. */
export const MAX_PAGE_SIZE = 1000;

/** Which ordering a cursor belongs to; a cursor from one list is refused by another. */
export type CursorOrder = 'runs' | 'attempts-newest' | 'attempts-plan' | 'run-tasks';

type SortKey = string | number;

const KEY_TYPE: Record<CursorOrder, 'string' | 'number'> = {
  runs: 'string',
  'attempts-newest': 'string',
  'attempts-plan': 'number',
  'run-tasks': 'string',
};

export interface Paging {
  limit: number;
  offset: number;
  after: { key: SortKey; id: string } | null;
}

export function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new HistoryError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${limit}`);
  }
  return limit;
}

export function encodeCursor(order: CursorOrder, key: SortKey, id: string): string {
  return Buffer.from(JSON.stringify([order, key, id])).toString('base64url');
}

function decodeCursor(cursor: string, order: CursorOrder): { key: SortKey; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 3 && parsed[0] === order) {
    const [, key, id] = parsed as unknown[];
    if ((typeof key === 'string' || typeof key === 'number') && typeof key === KEY_TYPE[order] && typeof id === 'string') {
      return { key, id };
    }
  }
  throw new HistoryError('invalid or foreign page cursor; start again without one');
}

export function paging(request: PageRequest, order: CursorOrder): Paging {
  const limit = checkedLimit(request.limit);
  const offset = request.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new HistoryError(`offset must be a whole number ≥ 0, got ${offset}`);
  if (request.cursor !== undefined && offset > 0) throw new HistoryError('give either a cursor or an offset, not both');
  return { limit, offset, after: request.cursor === undefined ? null : decodeCursor(request.cursor, order) };
}

/** Rows were fetched with limit + 1, so an extra row means there is a next page. */
export function toPage<R, T>(rows: R[], page: Paging, order: CursorOrder, sortKey: (row: R) => { key: SortKey; id: string }, toItem: (row: R) => T): Page<T> {
  const hasMore = rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  const last = kept[kept.length - 1];
  const next = hasMore && last !== undefined ? sortKey(last) : null;
  return { items: kept.map(toItem), nextCursor: next ? encodeCursor(order, next.key, next.id) : null };
}
