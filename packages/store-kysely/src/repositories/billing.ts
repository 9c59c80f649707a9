import { sql, type Selectable } from 'kysely';
import type {
  BillingCustomerRepository,
  LocalInvoiceRecord,
  LocalInvoiceRepository,
  ProcessedEventRepository,
  SubscriptionRecord,
  SubscriptionRepository,
  UsageCounterRecord,
  UsageCounterRepository,
} from '@stratbox/core';
import type { LocalInvoicesTable, SubscriptionsTable, UsageCountersTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toSubscription(row: Selectable<SubscriptionsTable>): SubscriptionRecord {
  return {
    userId: row.user_id,
    provider: row.provider,
    subscriptionId: row.subscription_id,
    customerId: row.customer_id,
    tier: row.tier as SubscriptionRecord['tier'],
    status: row.status as SubscriptionRecord['status'],
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: Number(row.cancel_at_period_end) === 1,
    eventCreatedAt: row.event_created_at,
    updatedAt: row.updated_at,
  };
}

function toUsage(row: Selectable<UsageCountersTable>): UsageCounterRecord {
  return {
    userId: row.user_id,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    backtests: Number(row.backtests),
    computeMs: Number(row.compute_ms),
    updatedAt: row.updated_at,
  };
}

function toInvoice(row: Selectable<LocalInvoicesTable>): LocalInvoiceRecord {
  return {
    id: row.id,
    userId: row.user_id,
    number: row.number,
    status: row.status,
    amountDue: Number(row.amount_due),
    amountPaid: Number(row.amount_paid),
    currency: row.currency,
    description: row.description,
    hostedUrl: row.hosted_url,
    pdfUrl: row.pdf_url,
    createdAt: row.created_at,
  };
}

/** Customers at payment providers: one per (user, provider); a customer id belongs to one user. */
export function createBillingCustomerRepository({ db }: QueryContext): BillingCustomerRepository {
  return {
    async insertIfAbsent(c) {
      await db
        .insertInto('billing_customers')
        .values({ user_id: c.userId, provider: c.provider, customer_id: c.customerId, created_at: c.createdAt })
        .onConflict((oc) => oc.columns(['user_id', 'provider']).doNothing())
        .execute();
      const row = await db
        .selectFrom('billing_customers')
        .selectAll()
        .where('user_id', '=', c.userId)
        .where('provider', '=', c.provider)
        .executeTakeFirstOrThrow();
      return { userId: row.user_id, provider: row.provider, customerId: row.customer_id, createdAt: row.created_at };
    },
    async findByUser(userId, provider) {
      const row = await db.selectFrom('billing_customers').selectAll().where('user_id', '=', userId).where('provider', '=', provider).executeTakeFirst();
      return row ? { userId: row.user_id, provider: row.provider, customerId: row.customer_id, createdAt: row.created_at } : null;
    },
    async findByCustomerId(provider, customerId) {
      const row = await db
        .selectFrom('billing_customers')
        .selectAll()
        .where('provider', '=', provider)
        .where('customer_id', '=', customerId)
        .executeTakeFirst();
      return row ? { userId: row.user_id, provider: row.provider, customerId: row.customer_id, createdAt: row.created_at } : null;
    },
  };
}

/**
 * Subscriptions, one per user. `putIfNotOlder` is one upsert whose update is guarded by
 * `event_created_at <= excluded.event_created_at` (ISO strings compare as times), so a state
 * from an older event never replaces a newer one, whatever the order of delivery.
 */
export function createSubscriptionRepository({ db }: QueryContext): SubscriptionRepository {
  return {
    async findByUser(userId) {
      const row = await db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst();
      return row ? toSubscription(row) : null;
    },
    async putIfNotOlder(s) {
      const row = await db
        .insertInto('subscriptions')
        .values({
          user_id: s.userId,
          provider: s.provider,
          subscription_id: s.subscriptionId,
          customer_id: s.customerId,
          tier: s.tier,
          status: s.status,
          current_period_start: s.currentPeriodStart,
          current_period_end: s.currentPeriodEnd,
          cancel_at_period_end: s.cancelAtPeriodEnd ? 1 : 0,
          event_created_at: s.eventCreatedAt,
          updated_at: s.updatedAt,
        })
        .onConflict((oc) =>
          oc
            .column('user_id')
            .doUpdateSet((eb) => ({
              provider: eb.ref('excluded.provider'),
              subscription_id: eb.ref('excluded.subscription_id'),
              customer_id: eb.ref('excluded.customer_id'),
              tier: eb.ref('excluded.tier'),
              status: eb.ref('excluded.status'),
              current_period_start: eb.ref('excluded.current_period_start'),
              current_period_end: eb.ref('excluded.current_period_end'),
              cancel_at_period_end: eb.ref('excluded.cancel_at_period_end'),
              event_created_at: eb.ref('excluded.event_created_at'),
              updated_at: eb.ref('excluded.updated_at'),
            }))
            .where((eb) => eb('subscriptions.event_created_at', '<=', eb.ref('excluded.event_created_at'))),
        )
        .returning('user_id')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/** Processed webhook events, keyed by (provider, event id). */
export function createProcessedEventRepository({ db }: QueryContext): ProcessedEventRepository {
  return {
    async markProcessed(provider, eventId, type, receivedAt) {
      const row = await db
        .insertInto('processed_events')
        .values({ provider, event_id: eventId, type, received_at: receivedAt })
        .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
        .returning('event_id')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/**
 * Usage per (user, period). `reserveBacktest` is a single upsert whose update is guarded by the
 * limits (`backtests < limit and compute_ms < limit`): PostgreSQL evaluates that guard on the
 * latest committed row after taking its lock, SQLite runs one statement at a time, so it is a
 * compare-and-set that concurrent callers can never overshoot.
 */
export function createUsageCounterRepository({ db }: QueryContext): UsageCounterRepository {
  return {
    async reserveBacktest(userId, period, limits, now) {
      if (limits.backtests < 1 || limits.computeMs <= 0) return null;
      const row = await db
        .insertInto('usage_counters')
        .values({ user_id: userId, period_start: period.start, period_end: period.end, backtests: 1, compute_ms: 0, updated_at: now })
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'period_start'])
            .doUpdateSet((eb) => ({ backtests: eb('usage_counters.backtests', '+', 1), updated_at: eb.ref('excluded.updated_at') }))
            .where((eb) => eb.and([eb('usage_counters.backtests', '<', limits.backtests), eb('usage_counters.compute_ms', '<', limits.computeMs)])),
        )
        .returningAll()
        .executeTakeFirst();
      return row ? toUsage(row) : null;
    },

    async releaseBacktest(userId, periodStart, now) {
      const row = await db
        .updateTable('usage_counters')
        .set({ backtests: sql<number>`case when backtests > 0 then backtests - 1 else 0 end`, updated_at: now })
        .where('user_id', '=', userId)
        .where('period_start', '=', periodStart)
        .returning('user_id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async addComputeMs(userId, period, ms, now) {
      await db
        .insertInto('usage_counters')
        .values({ user_id: userId, period_start: period.start, period_end: period.end, backtests: 0, compute_ms: ms, updated_at: now })
        .onConflict((oc) =>
          oc.columns(['user_id', 'period_start']).doUpdateSet((eb) => ({
            compute_ms: eb('usage_counters.compute_ms', '+', eb.ref('excluded.compute_ms')),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    },

    async find(userId, periodStart) {
      const row = await db.selectFrom('usage_counters').selectAll().where('user_id', '=', userId).where('period_start', '=', periodStart).executeTakeFirst();
      return row ? toUsage(row) : null;
    },
  };
}

/** The local billing provider's invoices. */
export function createLocalInvoiceRepository({ db }: QueryContext): LocalInvoiceRepository {
  return {
    async insert(i) {
      await db
        .insertInto('local_invoices')
        .values({
          id: i.id,
          user_id: i.userId,
          number: i.number,
          status: i.status,
          amount_due: i.amountDue,
          amount_paid: i.amountPaid,
          currency: i.currency,
          description: i.description,
          hosted_url: i.hostedUrl,
          pdf_url: i.pdfUrl,
          created_at: i.createdAt,
        })
        .execute();
    },
    async list(userId, { limit, after }) {
      let query = db.selectFrom('local_invoices').selectAll().where('user_id', '=', userId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toInvoice);
    },
  };
}
