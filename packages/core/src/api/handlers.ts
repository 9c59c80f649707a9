import { NEXT_CURSOR_HEADER, type RouteKey, type RouteOutput, type RouteParsedInput } from '@stratbox/contract';
import type { StrategyService } from '../strategies/strategy-service.js';
import type { BacktestService } from '../backtests/backtest-service.js';
import type { OptimizationService } from '../optimizations/optimization-service.js';
import type { MarketData, TimeframeName } from '../ports/market-data.js';
import { candlePage } from '../market-data/candle-page.js';
import type { BillingServices } from '../billing/create-billing-services.js';
import type { MarketplaceServices } from '../marketplace/create-marketplace-services.js';
import type { CredentialService } from '../credentials/credential-service.js';
import type { DeploymentService } from '../deployments/deployment-service.js';
import type { NotificationService } from '../notifications/notification-service.js';
import type { DriftService } from '../drift/drift-service.js';

/** What a handler receives: the validated input and the authenticated caller. */
export type HandlerContext<K extends RouteKey> = RouteParsedInput<K> & {
  /** The authenticated caller; empty for webhook routes. */
  userId: string;
  /** Raw request bytes, for routes with `rawBody`. */
  rawBody?: Uint8Array;
  headers: Record<string, string | string[] | undefined>;
  /** Sets a header of the success response (the route's `headers`, e.g. `X-Next-Cursor`); adapters supply it. */
  setHeader?: (name: string, value: string) => void;
};

export type ApiHandler<K extends RouteKey> = (ctx: HandlerContext<K>) => Promise<RouteOutput<K>>;

/**
 * One handler per route of the contract, every key required: a table without a handler for some
 * route does not type-check. Adapters validate, authenticate, then call these.
 */
export type ApiHandlers = { [K in RouteKey]: ApiHandler<K> };

export interface ApiServices {
  strategies: StrategyService;
  backtests: BacktestService;
  optimizations: OptimizationService;
  marketData: MarketData;
  billing: BillingServices;
  marketplace: MarketplaceServices;
  credentials: CredentialService;
  deployments: DeploymentService;
  notifications: NotificationService;
  drift: Pick<DriftService, 'report' | 'thresholds' | 'setThresholds'>;
}

/**
 * The request handler table: the one place that connects routes to services. It is one
 * `ApiHandlers` literal with a handler for every route of the contract, so a route added to the
 * contract without a handler here fails the type check; there is no fallback for a missing one.
 */
export function createApiHandlers(services: ApiServices): ApiHandlers {
  return {
    'strategies.list': ({ userId, query }) => services.strategies.list(userId, query),
    'strategies.get': ({ userId, params, query }) => services.strategies.get(userId, params.id, query),
    'strategies.create': ({ userId, body }) => services.strategies.create(userId, body),
    'strategies.update': ({ userId, params, body }) => services.strategies.update(userId, params.id, body),
    'strategies.delete': ({ userId, params }) => services.strategies.delete(userId, params.id),
    'backtests.list': ({ userId, query }) => services.backtests.list(userId, query),
    'backtests.get': ({ userId, params }) => services.backtests.get(userId, params.id),
    'backtests.trades': ({ userId, params, query }) => services.backtests.trades(userId, params.id, query),
    'backtests.logs': async ({ userId, params, query, setHeader }) => {
      const page = await services.backtests.logPage(userId, params.id, query);
      if (page.nextCursor !== null) setHeader?.(NEXT_CURSOR_HEADER, page.nextCursor);
      return page.logs;
    },
    'backtests.monteCarlo': ({ userId, params, body }) => services.backtests.monteCarlo(userId, params.id, body),
    'backtests.create': ({ userId, body }) => services.backtests.create(userId, body),
    'backtests.cancel': ({ userId, params }) => services.backtests.cancel(userId, params.id),
    'optimizations.list': ({ userId, query }) => services.optimizations.list(userId, query),
    'optimizations.get': ({ userId, params }) => services.optimizations.get(userId, params.id),
    'optimizations.trials': ({ userId, params, query }) => services.optimizations.trials(userId, params.id, query),
    'optimizations.create': ({ userId, body }) => services.optimizations.create(userId, body),
    'optimizations.cancel': ({ userId, params }) => services.optimizations.cancel(userId, params.id),
    'credentials.list': ({ userId, query }) => services.credentials.list(userId, query),
    'credentials.get': ({ userId, params }) => services.credentials.get(userId, params.id),
    'credentials.create': ({ userId, body }) => services.credentials.create(userId, body),
    'credentials.delete': ({ userId, params }) => services.credentials.delete(userId, params.id),
    'deployments.list': ({ userId, query }) => services.deployments.list(userId, query),
    'deployments.get': ({ userId, params }) => services.deployments.get(userId, params.id),
    'deployments.create': ({ userId, body }) => services.deployments.create(userId, body),
    'deployments.stop': ({ userId, params }) => services.deployments.stop(userId, params.id),
    'deployments.restart': ({ userId, params, body }) => services.deployments.restart(userId, params.id, body),
    'deployments.delete': ({ userId, params }) => services.deployments.delete(userId, params.id),
    'deployments.logs': async ({ userId, params, query, setHeader }) => {
      const page = await services.deployments.logPage(userId, params.id, query);
      if (page.nextCursor !== null) setHeader?.(NEXT_CURSOR_HEADER, page.nextCursor);
      return page.logs;
    },
    'deployments.orders': ({ userId, params, query }) => services.deployments.orders(userId, params.id, query),
    'deployments.positions': ({ userId, params }) => services.deployments.positions(userId, params.id),
    'deployments.drift': ({ userId, params, query }) => services.drift.report(userId, params.id, query),
    'deployments.getDriftAlerts': ({ userId, params }) => services.drift.thresholds(userId, params.id),
    'deployments.setDriftAlerts': ({ userId, params, body }) => services.drift.setThresholds(userId, params.id, body),
    'marketplace.search': ({ userId, query }) => services.marketplace.listings.search(userId, query),
    'marketplace.myListings': ({ userId, query }) => services.marketplace.listings.myListings(userId, query),
    'marketplace.purchases': ({ userId, query }) => services.marketplace.purchases.list(userId, query),
    'marketplace.get': ({ userId, params }) => services.marketplace.listings.get(userId, params.id),
    'marketplace.record': ({ userId, params }) => services.marketplace.records.get(userId, params.id),
    'marketplace.create': ({ userId, body }) => services.marketplace.listings.create(userId, body),
    'marketplace.update': ({ userId, params, body }) => services.marketplace.listings.update(userId, params.id, body),
    'marketplace.unlist': ({ userId, params }) => services.marketplace.listings.unlist(userId, params.id),
    'marketplace.purchase': ({ userId, params }) => services.marketplace.purchases.purchase(userId, params.id),
    'marketplace.reviews': ({ userId, params, query }) => services.marketplace.reviews.list(userId, params.id, query),
    'marketplace.review': ({ userId, params, body }) => services.marketplace.reviews.create(userId, params.id, body),
    'marketplace.updateReview': ({ userId, params, body }) => services.marketplace.reviews.update(userId, params.id, params.reviewId, body),
    'billing.subscription': ({ userId }) => services.billing.subscriptions.get(userId),
    'billing.checkout': ({ userId, body }) => services.billing.subscriptions.checkout(userId, body.tier),
    'billing.portal': ({ userId }) => services.billing.subscriptions.portal(userId),
    'billing.usage': ({ userId }) => services.billing.usage.get(userId),
    'billing.invoices': ({ userId, query }) => services.billing.subscriptions.invoices(userId, query),
    'billing.webhook': ({ rawBody, headers }) => services.billing.events.handleWebhook(rawBody, headers),
    'notifications.list': ({ userId, query }) => services.notifications.list(userId, query),
    'notifications.get': ({ userId, params }) => services.notifications.get(userId, params.id),
    'notifications.create': ({ userId, body }) => services.notifications.create(userId, body),
    'notifications.update': ({ userId, params, body }) => services.notifications.update(userId, params.id, body),
    'notifications.delete': ({ userId, params }) => services.notifications.delete(userId, params.id),
    'notifications.test': ({ userId, params }) => services.notifications.test(userId, params.id),
    'notifications.deliveries': ({ userId, params, query }) => services.notifications.deliveries(userId, params.id, query),
    'notifications.events': ({ userId, query }) => services.notifications.events(userId, query),
    'marketData.candles': ({ query }) =>
      candlePage(
        services.marketData,
        { symbol: query.symbol, timeframe: query.timeframe as TimeframeName, startDate: query.startDate, endDate: query.endDate },
        query,
      ),
  };
}
