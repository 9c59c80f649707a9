import type { PaperAccountRepository } from '@stratbox/core';
import type { QueryContext } from './query-context.js';

/**
 * Paper accounts. A save is one statement: the first an `insert ... on conflict do nothing`, the
 * next ones an `update ... where version = expected`, so of two writers that loaded the same
 * version exactly one succeeds, without an error that would abort a PostgreSQL transaction.
 */
export function createPaperAccountRepository({ db }: QueryContext): PaperAccountRepository {
  return {
    async load(credentialId, marketType) {
      const row = await db
        .selectFrom('paper_accounts')
        .select(['state', 'version'])
        .where('credential_id', '=', credentialId)
        .where('market_type', '=', marketType)
        .executeTakeFirst();
      return row ? { state: row.state, version: Number(row.version) } : null;
    },

    async save(credentialId, marketType, state, expectedVersion, updatedAt) {
      if (expectedVersion === 0) {
        const inserted = await db
          .insertInto('paper_accounts')
          .values({ credential_id: credentialId, market_type: marketType, state, version: 1, updated_at: updatedAt })
          .onConflict((oc) => oc.columns(['credential_id', 'market_type']).doNothing())
          .returning('version')
          .executeTakeFirst();
        return inserted !== undefined;
      }
      const updated = await db
        .updateTable('paper_accounts')
        .set({ state, version: expectedVersion + 1, updated_at: updatedAt })
        .where('credential_id', '=', credentialId)
        .where('market_type', '=', marketType)
        .where('version', '=', expectedVersion)
        .returning('version')
        .executeTakeFirst();
      return updated !== undefined;
    },

    async deleteForCredential(credentialId) {
      await db.deleteFrom('paper_accounts').where('credential_id', '=', credentialId).execute();
    },
  };
}
