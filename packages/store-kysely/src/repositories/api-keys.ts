import type { ApiKeyRepository } from '@stratbox/core';
import type { QueryContext } from './query-context.js';

/** API keys, stored only as their SHA-256 hash. */
export function createApiKeyRepository({ db }: QueryContext): ApiKeyRepository {
  return {
    async insert(key) {
      await db.insertInto('api_keys').values({ hash: key.hash, user_id: key.userId, created_at: key.createdAt }).execute();
    },
    async findUserIdByHash(hash) {
      const row = await db.selectFrom('api_keys').select('user_id').where('hash', '=', hash).executeTakeFirst();
      return row?.user_id ?? null;
    },
  };
}
