import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createStratboxClient,
  type DeploymentOrderList,
  type DeploymentPositions,
  type ListingRecordSummary,
  type LogPageData,
  type RouteInput,
  type StrategyDetail,
  type VerificationRecord,
} from '@stratbox/client';

/**
 * Type-level tests: `pnpm typecheck` (part of `pnpm test`) compiles this file, and every
 * `@ts-expect-error` below must be an error, or the compile fails. The calls are built but
 * never sent.
 */
describe('client types come from the contract', () => {
  it('accepts the right bodies and rejects wrong ones at compile time', () => {
    const client = createStratboxClient({ baseUrl: 'http://127.0.0.1:9', fetch: async () => new Response('{}') });
    const typed = () => {
      void client.strategies.create({ body: { name: 'ok', source: 'x' } });
      // @ts-expect-error name must be a string
      void client.strategies.create({ body: { name: 42, source: 'x' } });
      // @ts-expect-error source is required
      void client.strategies.create({ body: { name: 'x' } });
      // @ts-expect-error unknown fields are not part of the body type
      void client.strategies.create({ body: { name: 'x', source: 'x', userId: 'usr_1' } });
      // @ts-expect-error marketType is an enum
      void client.strategies.create({ body: { name: 'x', source: 'x', marketType: 'FUTURES' } });
      // @ts-expect-error params are required for get
      void client.strategies.get({});
      // @ts-expect-error the query has no such field
      void client.strategies.list({ query: { page: 2 } });
      void client.strategies.list({ query: { limit: 10, cursor: 'abc' } });
      // @ts-expect-error limit is a number (the client writes it as a string on the wire)
      void client.strategies.list({ query: { limit: 'ten' } });
      // @ts-expect-error limit is a number, even when the string holds one
      void client.backtests.trades({ params: { id: 'bt_1' }, query: { limit: '10' } });
      // @ts-expect-error version is a number
      void client.strategies.get({ params: { id: 'str_1' }, query: { version: 'latest' } });
      // @ts-expect-error status is one of the backtest statuses
      void client.backtests.list({ query: { status: 'done' } });
      void client.marketData.candles({ query: { symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2025-01-01', endDate: '2025-01-02', limit: 500 } });
      // @ts-expect-error timeframe is one of the contract's timeframes
      void client.marketData.candles({ query: { symbol: 'BTC/USDT:USDT', timeframe: '2h', startDate: '2025-01-01', endDate: '2025-01-02' } });
      // @ts-expect-error no such route
      void client.strategies.rename;
      void client.deployments.logPage({ params: { id: 'dep_1' }, query: { limit: 100, cursor: 'c' } });
      // @ts-expect-error log pages take the logs route's query (limit is a number)
      void client.deployments.logPage({ params: { id: 'dep_1' }, query: { limit: 'all' } });
      void client.credentials.create({ body: { exchange: 'paper', label: 'no keys' } });
      // @ts-expect-error the label is required
      void client.credentials.create({ body: { exchange: 'paper' } });
      // @ts-expect-error the webhook is for the payment provider, not for clients
      void client.billing.webhook;
      void client.marketplace.search({ query: { sort: 'forwardDays', minBadge: 'emerging', minForwardDays: 90 } });
      // @ts-expect-error sort is one of the contract's sort keys
      void client.marketplace.search({ query: { sort: 'hot' } });
      // @ts-expect-error minBadge is an evidence badge
      void client.marketplace.search({ query: { minBadge: 'gold' } });
      // @ts-expect-error minForwardDays is a number (the client writes it as a string on the wire)
      void client.marketplace.search({ query: { minForwardDays: '90' } });
      void client.marketplace.record({ params: { id: 'lst_1' } });
      // @ts-expect-error the record route needs the listing's id
      void client.marketplace.record({});
    };
    expect(typeof typed).toBe('function');
    expectTypeOf(client.strategies.get).returns.resolves.toEqualTypeOf<StrategyDetail>();
    expectTypeOf(client.strategies.delete).returns.resolves.toEqualTypeOf<void>();
    expectTypeOf(client.deployments.logPage).returns.resolves.toEqualTypeOf<LogPageData>();
    expectTypeOf(client.deployments.orders).returns.resolves.toEqualTypeOf<DeploymentOrderList>();
    expectTypeOf(client.deployments.positions).returns.resolves.toEqualTypeOf<DeploymentPositions>();
    expectTypeOf<NonNullable<RouteInput<'strategies.list'>['query']>['limit']>().toEqualTypeOf<number | undefined>();
    type RecordDetail = Awaited<ReturnType<typeof client.marketplace.record>>;
    expectTypeOf<RecordDetail['current']>().toEqualTypeOf<VerificationRecord | null>();
    expectTypeOf<RecordDetail['lineage']>().toEqualTypeOf<VerificationRecord[]>();
    expectTypeOf<RecordDetail['listed']>().toEqualTypeOf<boolean>();
    type SearchedListing = Awaited<ReturnType<typeof client.marketplace.search>>['listings'][number];
    expectTypeOf<SearchedListing['record']>().toEqualTypeOf<ListingRecordSummary | null>();
  });
});
