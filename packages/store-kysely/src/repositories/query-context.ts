import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import type { Database } from '../schema.js';

/** What a repository runs its queries on: the database, or one transaction of it. */
export interface QueryContext {
  db: Kysely<Database>;
  dialect: DialectName;
}

/** Runs `fn` in `db`'s transaction if it is one, else in a transaction of its own. */
export function atomically<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute((trx) => fn(trx));
}
