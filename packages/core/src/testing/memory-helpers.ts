import type { PageRequest } from '../ports/store.js';

/** `patch` without its undefined fields (an undefined field is a field not given). */
export const definedFields = <T extends object>(patch: T): Partial<T> =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;

/** One newest-first page of `rows`: (createdAt desc, id desc), strictly after `page.after`. */
export function newestFirst<T extends { createdAt: string; id: string }>(rows: Iterable<T>, page: PageRequest): T[] {
  const after = page.after;
  return [...rows]
    .filter((r) => !after || r.createdAt < after.createdAt || (r.createdAt === after.createdAt && r.id < after.id))
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
    .slice(0, page.limit);
}

/**
 * A write whose outcome depends on the state (a conditional insert, a compare-and-set): inside
 * a transaction it runs on the draft and again at commit on the live state; if the outcome
 * differs there (a write outside the transaction changed it meanwhile), the commit fails
 * instead of committing a decision that no longer holds.
 */
export function stableChange<S, T>(decide: (state: S) => T, outcome: (result: T) => unknown): (state: S) => T {
  let first: unknown;
  let ran = false;
  return (state) => {
    const result = decide(state);
    const o = outcome(result);
    if (ran && o !== first) throw new Error('A concurrent write changed the outcome of this transaction');
    ran = true;
    first = o;
    return result;
  };
}
