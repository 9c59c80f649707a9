import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Marketplace (listings with their tags, purchases, reviews) and billing (customers at the
 * payment provider, subscriptions, processed webhook events, usage counters, the local
 * provider's invoices). Like the earlier migrations every statement is `if not exists`, and on
 * PostgreSQL the columns rows are ordered by compare bytewise (`collate "C"`).
 *
 * The uniqueness the services rely on under concurrency is in the schema: one purchase per
 * (buyer, listing), one review per (listing, reviewer), one processed row per (provider, event),
 * one customer per (user, provider) and per (provider, customer id), one subscription per user,
 * one usage counter per (user, period). Search is case-insensitive through lower-cased copies
 * of name and description (`name_search`, `description_search`, lowered by core with
 * `toLowerCase()`, so Unicode folds the same on SQLite and PostgreSQL); "all of these tags" is
 * a query on `listing_tags`. Booleans are integers 0/1; compute is `double precision`.
 */
export function marketplaceAndBillingMigration(dialect: DialectName): Migration {
  /** A text column that sorts bytewise. */
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('listings')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('seller_id', 'text', (col) => col.notNull())
        .addColumn('strategy_id', 'text', (col) => col.notNull())
        .addColumn('strategy_version', 'integer', (col) => col.notNull())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text', (col) => col.notNull())
        .addColumn('name_search', 'text', (col) => col.notNull())
        .addColumn('description_search', 'text', (col) => col.notNull())
        .addColumn('price', 'integer', (col) => col.notNull())
        .addColumn('tags', 'text', (col) => col.notNull())
        .addColumn('rating_sum', 'integer', (col) => col.notNull())
        .addColumn('review_count', 'integer', (col) => col.notNull())
        .addColumn('purchase_count', 'integer', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('listings_status_created_at_id_idx').ifNotExists().on('listings').columns(['status', 'created_at desc', 'id desc']).execute();
      await db.schema
        .createIndex('listings_seller_id_status_created_at_id_idx')
        .ifNotExists()
        .on('listings')
        .columns(['seller_id', 'status', 'created_at desc', 'id desc'])
        .execute();

      await db.schema
        .createTable('listing_tags')
        .ifNotExists()
        .addColumn('listing_id', 'text', (col) => ordered(col).notNull().references('listings.id').onDelete('cascade'))
        .addColumn('tag', 'text', (col) => ordered(col).notNull())
        .addPrimaryKeyConstraint('listing_tags_pkey', ['listing_id', 'tag'])
        .execute();
      await db.schema.createIndex('listing_tags_tag_listing_id_idx').ifNotExists().on('listing_tags').columns(['tag', 'listing_id']).execute();

      await db.schema
        .createTable('purchases')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('buyer_id', 'text', (col) => col.notNull())
        .addColumn('listing_id', 'text', (col) => col.notNull())
        .addColumn('seller_id', 'text', (col) => col.notNull())
        .addColumn('strategy_id', 'text', (col) => col.notNull())
        .addColumn('strategy_version', 'integer', (col) => col.notNull())
        .addColumn('price', 'integer', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('checkout_session_id', 'text')
        .addColumn('checkout_url', 'text')
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addColumn('completed_at', 'text')
        .addUniqueConstraint('purchases_buyer_id_listing_id_key', ['buyer_id', 'listing_id'])
        .execute();
      await db.schema
        .createIndex('purchases_buyer_id_created_at_id_idx')
        .ifNotExists()
        .on('purchases')
        .columns(['buyer_id', 'created_at desc', 'id desc'])
        .execute();
      await db.schema.createIndex('purchases_buyer_id_strategy_id_idx').ifNotExists().on('purchases').columns(['buyer_id', 'strategy_id']).execute();

      await db.schema
        .createTable('reviews')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('listing_id', 'text', (col) => col.notNull())
        .addColumn('reviewer_id', 'text', (col) => col.notNull())
        .addColumn('rating', 'integer', (col) => col.notNull())
        .addColumn('text', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addUniqueConstraint('reviews_listing_id_reviewer_id_key', ['listing_id', 'reviewer_id'])
        .execute();
      await db.schema
        .createIndex('reviews_listing_id_created_at_id_idx')
        .ifNotExists()
        .on('reviews')
        .columns(['listing_id', 'created_at desc', 'id desc'])
        .execute();

      await db.schema
        .createTable('billing_customers')
        .ifNotExists()
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('provider', 'text', (col) => col.notNull())
        .addColumn('customer_id', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('billing_customers_pkey', ['user_id', 'provider'])
        .addUniqueConstraint('billing_customers_provider_customer_id_key', ['provider', 'customer_id'])
        .execute();

      await db.schema
        .createTable('subscriptions')
        .ifNotExists()
        .addColumn('user_id', 'text', (col) => col.primaryKey())
        .addColumn('provider', 'text', (col) => col.notNull())
        .addColumn('subscription_id', 'text', (col) => col.notNull())
        .addColumn('customer_id', 'text')
        .addColumn('tier', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('current_period_start', 'text')
        .addColumn('current_period_end', 'text')
        .addColumn('cancel_at_period_end', 'integer', (col) => col.notNull())
        .addColumn('event_created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('processed_events')
        .ifNotExists()
        .addColumn('provider', 'text', (col) => col.notNull())
        .addColumn('event_id', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('received_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('processed_events_pkey', ['provider', 'event_id'])
        .execute();

      await db.schema
        .createTable('usage_counters')
        .ifNotExists()
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('period_start', 'text', (col) => col.notNull())
        .addColumn('period_end', 'text', (col) => col.notNull())
        .addColumn('backtests', 'integer', (col) => col.notNull())
        .addColumn('compute_ms', 'double precision', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('usage_counters_pkey', ['user_id', 'period_start'])
        .execute();

      await db.schema
        .createTable('local_invoices')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('number', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('amount_due', 'integer', (col) => col.notNull())
        .addColumn('amount_paid', 'integer', (col) => col.notNull())
        .addColumn('currency', 'text', (col) => col.notNull())
        .addColumn('description', 'text', (col) => col.notNull())
        .addColumn('hosted_url', 'text')
        .addColumn('pdf_url', 'text')
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .execute();
      await db.schema
        .createIndex('local_invoices_user_id_created_at_id_idx')
        .ifNotExists()
        .on('local_invoices')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();
    },

    async down(db: Kysely<any>) {
      for (const table of [
        'local_invoices',
        'usage_counters',
        'processed_events',
        'subscriptions',
        'billing_customers',
        'reviews',
        'purchases',
        'listing_tags',
        'listings',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
