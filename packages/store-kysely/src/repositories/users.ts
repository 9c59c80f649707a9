import type { UserRecord, UserRepository } from '@stratbox/core';
import type { QueryContext } from './query-context.js';

/** Users: inserted once, found by id. */
export function createUserRepository({ db }: QueryContext): UserRepository {
  return {
    async insert(user) {
      await db.insertInto('users').values({ id: user.id, name: user.name, created_at: user.createdAt }).execute();
    },
    async findById(id): Promise<UserRecord | null> {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? { id: row.id, name: row.name, createdAt: row.created_at } : null;
    },
  };
}
