import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ListPosition, PageRequest } from '../ports/store.js';

/* Fixtures of the Store contract suites. Every test makes its own ids, so tests share one store and never see each other. */

/** A fresh id of the given prefix, e.g. `uid('str')`. */
export const uid = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

const BASE_TIME = Date.UTC(2026, 0, 2, 3, 4, 5);
/** A timestamp `seconds` after a fixed base, in the stored format (ISO 8601, milliseconds, UTC). */
export const at = (seconds: number) => new Date(BASE_TIME + seconds * 1000).toISOString();

/**
 * Ids that share a random prefix and end in characters whose byte order differs from
 * case-insensitive or punctuation-ignoring collations: `-` < `0` < `A` < `Z` < `_` < `a`.
 */
export const tieIds = (prefix: string) => {
  const base = uid(prefix);
  return ['a', '_', 'Z', 'A', '0', '-'].map((suffix) => `${base}${suffix}`);
};

/** Newest first: createdAt descending, then id descending (code unit order). */
export const byNewestFirst = <T extends ListPosition>(a: T, b: T) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;

/** Reads a whole newest-first list page by page, following `after` from the last row. */
export async function readAllPages<T extends ListPosition>(fetch: (page: PageRequest) => Promise<T[]>, limit: number): Promise<T[][]> {
  const pages: T[][] = [];
  let after: ListPosition | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await fetch(after ? { limit, after } : { limit });
    pages.push(page);
    const last = page[page.length - 1];
    if (page.length < limit || !last) return pages;
    after = { createdAt: last.createdAt, id: last.id };
  }
  throw new Error('Pagination did not end');
}

/**
 * Reads a newest-first list page by page with each of `limits`, and expects every row of
 * `expected` exactly once, in order, every page but the last full.
 */
export async function expectPagedOnce<T extends ListPosition>(fetch: (page: PageRequest) => Promise<T[]>, expected: T[], limits = [1, 2, 3, 4]): Promise<void> {
  for (const limit of limits) {
    const pages = await readAllPages(fetch, limit);
    expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
    expect(pages.flat()).toEqual(expected);
  }
}
