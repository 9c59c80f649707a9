import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Purchases by listing: the buyers' outcomes of a verified listing (docs/verified-listings.md)
 * read a listing's completed purchases, newest first, across buyers
 * (`PurchaseRepository.listCompletedByListing`). Without this index that read scans every
 * purchase. As in the earlier migrations the statement is `if not exists`.
 */
export function purchasesByListingMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createIndex('purchases_listing_id_status_created_at_id_idx')
        .ifNotExists()
        .on('purchases')
        .columns(['listing_id', 'status', 'created_at desc', 'id desc'])
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropIndex('purchases_listing_id_status_created_at_id_idx').ifExists().execute();
    },
  };
}
