import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import type { Database } from '../schema.js';

/** What a repository runs its queries on: the database, or one transaction of it. */
export interface QueryContext {
  db: Kysely<Database>;
  dialect: DialectName;
}
