import { StratboxError } from '../errors/stratbox-error.js';
import { type ListingRecord, type ListingSearchPosition, type ListingSearchSort, listingSearchPosition } from '../ports/store.js';

/*
 * The `nextCursor` of `GET /api/marketplace`. Newest first it is the position of the page's last
 * listing, as every list's cursor; sorted by a record figure it also holds the sort key and the
 * last listing's figure (the value the next page starts below), so a page never repeats or skips
 * a listing whose figure does not change meanwhile. A cursor of another sort is a 400.
 */

/** The cursor after `last` in a search sorted by `sort`. */
export function encodeSearchCursor(last: Pick<ListingRecord, 'id' | 'createdAt' | 'recordSummary'>, sort: ListingSearchSort): string {
  const position = listingSearchPosition(last, sort);
  const value = sort === 'newest' ? [position.createdAt, position.id] : [position.createdAt, position.id, sort, position.value ?? null];
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The position a client's cursor names for `sort`; undefined without one. A tampered, foreign or other sort's cursor is a 400. */
export function decodeSearchCursor(cursor: string | undefined, sort: ListingSearchSort): ListingSearchPosition | undefined {
  if (cursor === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') {
    const [createdAt, id] = value as [string, string];
    if (sort === 'newest' && value.length === 2) return { createdAt, id };
    const figure: unknown = value[3];
    if (sort !== 'newest' && value.length === 4 && value[2] === sort && (figure === null || (typeof figure === 'number' && Number.isFinite(figure)))) {
      return { createdAt, id, value: figure as number | null };
    }
  }
  throw new StratboxError('VALIDATION_FAILED', 'Invalid cursor', [{ path: 'query.cursor', message: 'Not a cursor this API issued for this sort' }]);
}
