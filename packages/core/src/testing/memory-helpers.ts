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
