import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Paper accounts: the state of each (credential, market type) paper account as text the paper
 * exchange writes, with a version for compare-and-set saves. `if not exists`, like the earlier
 * migrations, so it completes when run again after stopping half-way.
 */
export function paperAccountsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('paper_accounts')
        .ifNotExists()
        .addColumn('credential_id', 'text', (col) => col.notNull())
        .addColumn('market_type', 'text', (col) => col.notNull())
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('paper_accounts_pkey', ['credential_id', 'market_type'])
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('paper_accounts').ifExists().execute();
    },
  };
}
