import { sql } from 'kysely';
import type { UserRecord, UserRepository } from '@stratbox/core';
import type { QueryContext } from './query-context.js';

/** First key of Stratbox's per-user advisory locks on PostgreSQL ('sbxu'), so they stay apart from a host's own. */
const USER_LOCK_CLASS = 0x73627875;

/** Users: inserted once, found by id, locked per transaction. */
export function createUserRepository({ db, dialect }: QueryContext): UserRepository {
  return {
    async insert(user) {
      await db.insertInto('users').values({ id: user.id, name: user.name, created_at: user.createdAt }).execute();
    },
    async findById(id): Promise<UserRecord | null> {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? { id: row.id, name: row.name, createdAt: row.created_at } : null;
    },
    async lock(userId) {
      // SQLite transactions start with `begin immediate` and so run one at a time already.
      if (dialect !== 'postgres') return;
      // Held until the transaction ends; a hash collision only serializes two users needlessly.
      await sql`select pg_advisory_xact_lock(${USER_LOCK_CLASS}, hashtext(${userId}))`.execute(db);
    },
  };
}
