import { StratboxError } from '../errors/stratbox-error.js';
import type { ListPosition } from '../ports/store.js';

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
  throw new StratboxError('VALIDATION_FAILED', 'Invalid cursor', [{ path: 'cursor', message: 'Not a cursor this API issued' }]);
}

export const DEFAULT_PAGE_SIZE = 50;

/**
 * Runs a newest-first list query for one page: asks for one row more than the page to learn
 * whether another page follows.
 */
export async function paginate<T extends { createdAt: string; id: string }>(
  query: { limit?: number | undefined; cursor?: string | undefined },
  fetch: (page: { limit: number; after?: ListPosition }) => Promise<T[]>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const after = decodeCursor(query.cursor);
  const rows = await fetch(after ? { limit: limit + 1, after } : { limit: limit + 1 });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}
