import { StratboxError } from '../errors/stratbox-error.js';
import type { ListPosition, LogPosition } from '../ports/store.js';

/** The opaque `nextCursor` for a list position. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

/** Reads a cursor a client sent back; a tampered or foreign one is a 400. */
export function decodeCursor(cursor: string | undefined): ListPosition | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // fall through
  }
  throw invalidCursor('cursor');
}

function invalidCursor(path: string): StratboxError {
  return new StratboxError('VALIDATION_FAILED', 'Invalid cursor', [{ path, message: 'Not a cursor this API issued' }]);
}

/** The opaque `nextCursor` for a position in a list ordered by a sequence number. */
export function encodeSeqCursor(seq: number): string {
  return Buffer.from(`s:${seq}`).toString('base64url');
}

/** Reads a sequence cursor a client sent back; a tampered or foreign one is a 400. */
export function decodeSeqCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const match = /^s:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidCursor('query.cursor');
  return Number(match[1]);
}

export const DEFAULT_PAGE_SIZE = 50;

type PageQuery = { limit?: number | undefined; cursor?: string | undefined };

/**
 * Runs a list query for one page: asks for one row more than the page to learn whether another
 * page follows; the cursor holds the position of the page's last row.
 */
async function readPage<T, P>(
  query: PageQuery,
  cursor: { decode: (cursor: string | undefined) => P | undefined; encode: (last: T) => string },
  fetch: (page: { limit: number; after?: P }) => Promise<T[]>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const after = cursor.decode(query.cursor);
  const rows = await fetch(after === undefined ? { limit: limit + 1 } : { limit: limit + 1, after });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? cursor.encode(last) : null };
}

/** One page of a newest-first list (records with `createdAt` and `id`). */
export function paginate<T extends { createdAt: string; id: string }>(
  query: PageQuery,
  fetch: (page: { limit: number; after?: ListPosition }) => Promise<T[]>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  return readPage(query, { decode: decodeCursor, encode: encodeCursor }, fetch);
}

/** One page of a list in `seq` order (rows strictly after the cursor's `seq`). */
export function paginateBySeq<T extends { seq: number }>(
  query: PageQuery,
  fetch: (page: { limit: number; afterSeq?: number }) => Promise<T[]>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  return readPage(query, { decode: decodeSeqCursor, encode: (last: T) => encodeSeqCursor(last.seq) }, ({ limit, after }) =>
    fetch(after === undefined ? { limit } : { limit, afterSeq: after }),
  );
}

/** One page of a deployment's log, oldest first by (timestamp, seq); the cursor holds the last entry's position. */
export function paginateLog<T extends LogPosition>(
  query: PageQuery,
  fetch: (page: { limit: number; after?: LogPosition }) => Promise<T[]>,
  defaultLimit: number,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const decode = (cursor: string | undefined): LogPosition | undefined => {
    const position = decodeCursor(cursor);
    if (position === undefined) return undefined;
    if (!/^\d{1,15}$/.test(position.id)) throw invalidCursor('query.cursor');
    return { timestamp: position.createdAt, seq: Number(position.id) };
  };
  const encode = (last: T) => encodeCursor({ createdAt: last.timestamp, id: String(last.seq) });
  return readPage({ ...query, limit: query.limit ?? defaultLimit }, { decode, encode }, fetch);
}
