import { z } from 'zod';
import { idParams } from './common.js';
import { defineRoute } from './route.js';
import { BacktestId, CredentialId, DeploymentId, ListingId, NotificationChannelId, OptimizationId, ReviewId, StrategyId } from './ids.js';
import * as O from './optimizations.js';
import * as S from './strategies.js';
import * as B from './backtests.js';
import * as D from './deployments.js';
import * as DR from './drift.js';
import * as C from './credentials.js';
import * as M from './marketplace.js';
import * as Bi from './billing.js';
import * as MD from './market-data.js';
import * as N from './notifications.js';
import * as LR from './listing-records.js';

const strategyParams = idParams(StrategyId);
const backtestParams = idParams(BacktestId);
const optimizationParams = idParams(OptimizationId);
const deploymentParams = idParams(DeploymentId);
const credentialParams = idParams(CredentialId);
const listingParams = idParams(ListingId);
const channelParams = idParams(NotificationChannelId);

/**
 * The route table: every endpoint of docs/spec.md plus those docs/api-contract.md and the issues add.
 * Keys are `<group>.<action>`; the client exposes them as `client.<group>.<action>()`.
 */
// biome-ignore format: one route per block, its fields grouped by line (what it is; what it takes; what it answers)
export const routes = {
  // ---- strategies ----
  'strategies.list': defineRoute({
    method: 'GET', path: '/api/strategies', summary: "List the caller's strategies, newest first",
    query: S.ListStrategiesQuery, successStatus: 200, response: S.StrategyList, errors: [],
  }),
  'strategies.get': defineRoute({
    method: 'GET', path: '/api/strategies/:id', summary: 'Get a strategy with its source and version history',
    params: strategyParams, query: S.GetStrategyQuery, successStatus: 200, response: S.StrategyDetail, errors: ['NOT_FOUND'],
  }),
  'strategies.create': defineRoute({
    method: 'POST', path: '/api/strategies', summary: 'Create a strategy (version 1)',
    body: S.CreateStrategyBody, successStatus: 201, response: S.StrategyDetail, errors: ['PAYLOAD_TOO_LARGE'],
  }),
  'strategies.update': defineRoute({
    method: 'PUT', path: '/api/strategies/:id', summary: 'Update a strategy; a changed source creates a new version',
    params: strategyParams, body: S.UpdateStrategyBody, successStatus: 200, response: S.StrategyDetail,
    errors: ['NOT_FOUND', 'PAYLOAD_TOO_LARGE'],
  }),
  'strategies.delete': defineRoute({
    method: 'DELETE', path: '/api/strategies/:id', summary: 'Delete a strategy; refused while it has active deployments, is listed on the marketplace, or once it was sold',
    params: strategyParams, successStatus: 204, response: null, errors: ['NOT_FOUND', 'CONFLICT'],
  }),

  // ---- backtests ----
  'backtests.list': defineRoute({
    method: 'GET', path: '/api/backtests', summary: "List the caller's backtests, newest first",
    query: B.ListBacktestsQuery, successStatus: 200, response: B.BacktestList, errors: [],
  }),
  'backtests.get': defineRoute({
    method: 'GET', path: '/api/backtests/:id', summary: 'Get a backtest with its results (bounded: the first trades, the equity curve downsampled)',
    description:
      `Once completed: \`metrics\` over every trade of the run, \`equityCurve\` (at most 5,000 points), the first ${B.DETAIL_TRADES.toLocaleString('en')} ` +
      'stored trades, and `tradeCount`, `storedTradeCount` and `tradesTruncated`; the stored trades are all at `GET /api/backtests/:id/trades`.',
    params: backtestParams, successStatus: 200, response: B.BacktestDetail, errors: ['NOT_FOUND'],
  }),
  'backtests.trades': defineRoute({
    method: 'GET', path: '/api/backtests/:id/trades', summary: "A backtest's stored trades, in pages, oldest entry first",
    description:
      'The trades stored for the run, in chronological order of entry (`entryTime`, then `exitTime`; the order never changes), ' +
      '`limit` 1-200 (default 50), `cursor` from `nextCursor`; `nextCursor` is null on the last page. Empty until the backtest completes. ' +
      `A run stores at most a configured number of its first trades (${B.DEFAULT_MAX_BACKTEST_TRADES.toLocaleString('en')} by default); ` +
      '`tradesTruncated` on the backtest says when it made more.',
    params: backtestParams, query: B.ListBacktestTradesQuery, successStatus: 200, response: B.BacktestTradeList, errors: ['NOT_FOUND'],
  }),
  'backtests.logs': defineRoute({
    method: 'GET', path: '/api/backtests/:id/logs', summary: "The strategy's log lines of a backtest, oldest first, in pages (as deployment logs: a bare array, the next page's cursor in `X-Next-Cursor`)",
    description:
      'The lines the strategy wrote with `ctx.log` (and `console`) during the run, each stamped with the candle time it was written at, oldest first ' +
      '(timestamp, then order of writing), in the shape, query and paging of `GET /api/deployments/:id/logs`: at or after `since` when given, at most ' +
      '`limit` (1-1000, default 200); when more lines follow, the header `X-Next-Cursor` holds the cursor of the next page (send it back as `cursor`, ' +
      'with the same `since`); no header: the last page. The lines are kept when the run ends: completed, failed (the lines written before the ' +
      'strategy threw, timed out or hit the log limit) or cancelled (those the sandbox could still hand back); empty until then, and within the ' +
      "run's log limit (10,000 lines or 1,000,000 characters by default, past which the run fails with `LOG_LIMIT`). A backtest of a strategy " +
      "bought on the marketplace answers 403 `FORBIDDEN`: a run-only licence does not include the strategy's log, which is kept for no one. " +
      "The typed client's `backtests.logPage` returns `{ logs, nextCursor }`.",
    params: backtestParams, query: D.LogsQuery, successStatus: 200, response: D.LogList, errors: ['NOT_FOUND', 'FORBIDDEN'],
    headers: { [D.NEXT_CURSOR_HEADER]: { description: 'Cursor of the next page (send it as `cursor`); absent on the last page' } },
  }),
  'backtests.monteCarlo': defineRoute({
    method: 'POST', path: '/api/backtests/:id/monte-carlo', summary: "Monte Carlo over a completed backtest's trades: percentiles of final return, max drawdown and longest drawdown, and the probability of ruin, for a seed",
    description:
      "Each stored trade is one return: its P&L (net of fees and funding) over the equity before it (starting capital plus the P&L of the trades " +
      'that closed earlier); a run compounds `trades` returns from 1, in a random order (`shuffle`) or drawn with replacement (`bootstrap`). ' +
      "Open positions' marks between trades and time are not part of the model. Percentiles interpolate linearly between order statistics " +
      '(numpy\'s default). The same body answers the same, always. A completed backtest without trades answers zeros. ' +
      `\`runs\` × stored trades above ${B.MONTE_CARLO_MAX_STEPS.toLocaleString('en')}: 400. Not completed (queued, running, failed, cancelled): 409. See docs/research.md.`,
    params: backtestParams, body: B.MonteCarloBody, successStatus: 200, response: B.MonteCarloResult, errors: ['NOT_FOUND', 'CONFLICT'],
  }),
  'backtests.create': defineRoute({
    method: 'POST', path: '/api/backtests', summary: 'Queue a backtest; it runs in a sandboxed subprocess',
    body: B.CreateBacktestBody, successStatus: 202, response: B.BacktestSummary,
    errors: ['NOT_FOUND', 'PLAN_LIMIT_EXCEEDED', 'UNAVAILABLE'],
  }),
  'backtests.cancel': defineRoute({
    method: 'POST', path: '/api/backtests/:id/cancel', summary: 'Cancel a queued or running backtest',
    params: backtestParams, successStatus: 200, response: B.BacktestSummary, errors: ['NOT_FOUND', 'CONFLICT'],
  }),

  // ---- optimizations ----
  'optimizations.list': defineRoute({
    method: 'GET', path: '/api/optimizations', summary: "List the caller's optimizations, newest first",
    query: O.ListOptimizationsQuery, successStatus: 200, response: O.OptimizationList, errors: [],
  }),
  'optimizations.get': defineRoute({
    method: 'GET', path: '/api/optimizations/:id', summary: 'Get an optimization: its progress, best trial and, once completed, its results',
    description:
      'Results: 1- and 2-parameter sensitivity, per-fold in-sample and out-of-sample metrics, walk-forward efficiency, the stitched ' +
      'out-of-sample equity, the Deflated Sharpe Ratio of the best trial and the Probability of Backtest Overfitting. See docs/research.md.',
    params: optimizationParams, successStatus: 200, response: O.OptimizationDetail, errors: ['NOT_FOUND'],
  }),
  'optimizations.trials': defineRoute({
    method: 'GET', path: '/api/optimizations/:id/trials', summary: "An optimization's trials, in pages, best first (or in search order)",
    description: 'Pages are positions in the order asked for; while the optimization runs, new trials may shift later pages.',
    params: optimizationParams, query: O.ListTrialsQuery, successStatus: 200, response: O.TrialList, errors: ['NOT_FOUND'],
  }),
  'optimizations.create': defineRoute({
    method: 'POST', path: '/api/optimizations', summary: 'Queue a parameter optimization: trials run in the sandbox, with optional walk-forward validation',
    description:
      'Takes what a backtest takes plus a search space (checked against `meta.params`), a method, an objective, constraints and a validation scheme. ' +
      "Trials above the plan's `trialsPerOptimization`, or no compute left: 402. Every trial's CPU time is metered as compute.",
    body: O.CreateOptimizationBody, successStatus: 202, response: O.OptimizationSummary,
    errors: ['NOT_FOUND', 'PLAN_LIMIT_EXCEEDED', 'UNAVAILABLE'],
  }),
  'optimizations.cancel': defineRoute({
    method: 'POST', path: '/api/optimizations/:id/cancel', summary: 'Cancel a queued or running optimization; its trials stop within a second',
    params: optimizationParams, successStatus: 200, response: O.OptimizationSummary, errors: ['NOT_FOUND', 'CONFLICT'],
  }),

  // ---- market data ----
  'marketData.candles': defineRoute({
    method: 'GET', path: '/api/market-data/candles', summary: 'The candles a backtest over this range uses',
    query: MD.CandlesQuery, successStatus: 200, response: MD.CandleList, errors: ['NOT_FOUND', 'UNAVAILABLE'],
  }),

  // ---- credentials ----
  'credentials.list': defineRoute({
    method: 'GET', path: '/api/credentials', summary: "List the caller's exchange credentials (no secrets)",
    query: C.ListCredentialsQuery, successStatus: 200, response: C.CredentialList, errors: [],
  }),
  'credentials.get': defineRoute({
    method: 'GET', path: '/api/credentials/:id', summary: 'Get one credential (no secrets)',
    params: credentialParams, successStatus: 200, response: C.Credential, errors: ['NOT_FOUND'],
  }),
  'credentials.create': defineRoute({
    method: 'POST', path: '/api/credentials', summary: 'Store an exchange credential; secrets are encrypted and never returned',
    body: C.CreateCredentialBody, successStatus: 201, response: C.Credential, errors: [],
  }),
  'credentials.delete': defineRoute({
    method: 'DELETE', path: '/api/credentials/:id', summary: 'Delete a credential; refused while an active deployment uses it',
    params: credentialParams, successStatus: 204, response: null, errors: ['NOT_FOUND', 'CONFLICT'],
  }),

  // ---- deployments ----
  'deployments.list': defineRoute({
    method: 'GET', path: '/api/deployments', summary: "List the caller's deployments, newest first",
    query: D.ListDeploymentsQuery, successStatus: 200, response: D.DeploymentList, errors: [],
  }),
  'deployments.get': defineRoute({
    method: 'GET', path: '/api/deployments/:id', summary: 'Get one deployment',
    params: deploymentParams, successStatus: 200, response: D.Deployment, errors: ['NOT_FOUND'],
  }),
  'deployments.create': defineRoute({
    method: 'POST', path: '/api/deployments', summary: "Deploy a strategy live; subject to the plan's live bot limit, one active deployment per credential and symbol",
    body: D.CreateDeploymentBody, successStatus: 201, response: D.Deployment,
    errors: ['NOT_FOUND', 'CONFLICT', 'PLAN_LIMIT_EXCEEDED', 'UNAVAILABLE'],
  }),
  'deployments.stop': defineRoute({
    method: 'POST', path: '/api/deployments/:id/stop', summary: 'Stop gracefully: cancel open orders, close positions',
    params: deploymentParams, successStatus: 200, response: D.Deployment, errors: ['NOT_FOUND', 'CONFLICT'],
  }),
  'deployments.restart': defineRoute({
    method: 'POST', path: '/api/deployments/:id/restart', summary: 'Restart the deployment (also a halted one), optionally with new risk limits',
    params: deploymentParams, body: D.RestartDeploymentBody, successStatus: 200, response: D.Deployment, errors: ['NOT_FOUND', 'CONFLICT', 'PLAN_LIMIT_EXCEEDED'],
  }),
  'deployments.delete': defineRoute({
    method: 'DELETE', path: '/api/deployments/:id', summary: 'Stop the deployment if running, then remove it',
    params: deploymentParams, successStatus: 204, response: null, errors: ['NOT_FOUND', 'UNAVAILABLE'],
  }),
  'deployments.logs': defineRoute({
    method: 'GET', path: '/api/deployments/:id/logs', summary: 'Log entries, oldest first, in pages (a bare array; the next page\'s cursor in `X-Next-Cursor`)',
    description:
      'The body is the bare array of log entries the service specification fixes, oldest first (timestamp, then order of writing), at or after `since` when given, ' +
      'at most `limit` (1-1000, default 200). When more entries follow, the response carries the header `X-Next-Cursor`; send it back as ' +
      '`cursor` (with the same `since`) for the entries after the page\'s last one. No header: this is the last page for now (a running ' +
      'deployment keeps writing; ask again with the last cursor you had). The typed client\'s `deployments.logPage` returns `{ logs, nextCursor }`.',
    params: deploymentParams, query: D.LogsQuery, successStatus: 200, response: D.LogList, errors: ['NOT_FOUND'],
    headers: { [D.NEXT_CURSOR_HEADER]: { description: 'Cursor of the next page (send it as `cursor`); absent on the last page' } },
  }),
  'deployments.orders': defineRoute({
    method: 'GET', path: '/api/deployments/:id/orders', summary: "A deployment's orders, newest first, in pages",
    description:
      'Every order the deployment placed (stop-loss and take-profit closes and the closes of a stop included), newest first by creation, ' +
      '`limit` 1-200 (default 50), `cursor` from `nextCursor`. Each order has the shape of channel `deployment:<id>:orders` ' +
      '(`price` is the trigger price of a stop order). Pages never repeat or skip an order: orders only ever get added, newer ones before the first page.',
    params: deploymentParams, query: D.ListDeploymentOrdersQuery, successStatus: 200, response: D.DeploymentOrderList, errors: ['NOT_FOUND'],
  }),
  'deployments.positions': defineRoute({
    method: 'GET', path: '/api/deployments/:id/positions', summary: "Open positions of the deployment's symbols, with unrealized and realized P&L",
    description:
      "`positions`: the open positions of the deployment's symbols on its exchange account, read from the exchange now (they are the " +
      "account's: what was opened by hand counts too) for a deployment that is starting, running, stopping or failed (a failure may leave " +
      'positions open; stop it to close them). A stopped deployment answers `live: false` and no positions: its stop closed them, and what ' +
      "the account holds since is not the deployment's. `bySymbol`: realized P&L of the deployment's own fills, average cost, net of fees " +
      '(see docs/live-deployments.md). 503 `UNAVAILABLE` when the exchange cannot be read.',
    params: deploymentParams, successStatus: 200, response: D.DeploymentPositions, errors: ['NOT_FOUND', 'UNAVAILABLE'],
  }),

  'deployments.drift': defineRoute({
    method: 'GET', path: '/api/deployments/:id/drift', summary: 'The drift report: the deployment against a backtest replayed over the candles it saw',
    description:
      'Replays the deployment\'s strategy version and parameters as a backtest over exactly the candles the deployment was given ' +
      '(candles it missed while down come from the market data and count as downtime), in the sandbox pool and metered like any run, ' +
      'then compares: decision parity, matched/missed/extra trades, slippage, fee and funding gaps, equity correlation, DTW, tracking ' +
      'error and a P&L waterfall (docs/drift.md). Reports are stored: asking again without new candles answers the stored one. ' +
      'A bought strategy\'s report carries no source and no strategy log. 409 `CONFLICT` before the deployment has processed a candle.',
    params: deploymentParams, query: DR.DriftQuery, successStatus: 200, response: DR.DriftReport, errors: ['NOT_FOUND', 'CONFLICT', 'PLAN_LIMIT_EXCEEDED'],
  }),
  'deployments.getDriftAlerts': defineRoute({
    method: 'GET', path: '/api/deployments/:id/drift/alerts', summary: "The deployment's drift alert thresholds",
    params: deploymentParams, successStatus: 200, response: DR.DriftThresholds, errors: ['NOT_FOUND'],
  }),
  'deployments.setDriftAlerts': defineRoute({
    method: 'PUT', path: '/api/deployments/:id/drift/alerts', summary: "Sets the deployment's drift alert thresholds",
    description: 'Fields omitted keep their defaults (correlation 0.8, DTW 0.2, slippage 5x the model, any parity miss); `null` turns one off.',
    params: deploymentParams, body: DR.SetDriftThresholdsBody, successStatus: 200, response: DR.DriftThresholds, errors: ['NOT_FOUND'],
  }),

  // ---- marketplace ----
  'marketplace.search': defineRoute({
    method: 'GET', path: '/api/marketplace', summary: 'Browse listings: `search` on name/description, `tags` all required',
    description:
      'Listed listings of every seller, newest first (`limit` 1-200, default 50; `cursor` from `nextCursor`). `search` is a ' +
      'case-insensitive substring of the name or the description (`%` and `_` match themselves). `tags` is a comma-separated list ' +
      '(at most 10, case-insensitive); a listing must carry all of them. Given both, both apply. Prices are USD cents.',
    query: M.SearchListingsQuery, successStatus: 200, response: M.ListingList, errors: [],
  }),
  'marketplace.myListings': defineRoute({
    method: 'GET', path: '/api/marketplace/my-listings', summary: "The caller's own listings",
    query: M.MyListingsQuery, successStatus: 200, response: M.ListingList, errors: [],
  }),
  'marketplace.purchases': defineRoute({
    method: 'GET', path: '/api/marketplace/purchases', summary: "The caller's purchases",
    query: M.PurchasesQuery, successStatus: 200, response: M.PurchaseList, errors: [],
  }),
  'marketplace.get': defineRoute({
    method: 'GET', path: '/api/marketplace/:id', summary: 'One listing',
    params: listingParams, successStatus: 200, response: M.Listing, errors: ['NOT_FOUND'],
  }),
  'marketplace.record': defineRoute({
    method: 'GET', path: '/api/marketplace/:id/record', summary: "A listing's verified record: platform backtest, forward record, search effort, badge, lineage",
    description:
      'Computed by the platform on the listed version and never editable by the seller: a platform backtest over the two years before listing ' +
      '(default fees and slippage, funding on), a forward record on the paper account model from the moment of listing, the search effort ' +
      '(backtests and optimization trials the seller ran first) as the Deflated Sharpe Ratio\'s number of trials, and the evidence badge. ' +
      'Readable by anyone with the link, also after the listing is delisted; it never contains the source.',
    params: listingParams, successStatus: 200, response: LR.ListingRecordDetail, errors: ['NOT_FOUND'],
  }),
  'marketplace.create': defineRoute({
    method: 'POST', path: '/api/marketplace', summary: 'Publish one of your strategies (pins its current version)',
    body: M.CreateListingBody, successStatus: 201, response: M.Listing, errors: ['NOT_FOUND'],
  }),
  'marketplace.update': defineRoute({
    method: 'PUT', path: '/api/marketplace/:id', summary: 'Update your listing',
    params: listingParams, body: M.UpdateListingBody, successStatus: 200, response: M.Listing, errors: ['NOT_FOUND'],
  }),
  'marketplace.unlist': defineRoute({
    method: 'DELETE', path: '/api/marketplace/:id', summary: 'Unlist your listing (buyers keep their licences)',
    params: listingParams, successStatus: 204, response: null, errors: ['NOT_FOUND'],
  }),
  'marketplace.purchase': defineRoute({
    method: 'POST', path: '/api/marketplace/:id/purchase', summary: 'Buy a run-only licence for the listing',
    description:
      'A free listing is bought at once (`completed`). A paid one is `pending` with a `checkoutUrl` until the payment provider ' +
      'confirms it (the embedded local provider confirms at once). The licence lets the buyer backtest and deploy the listed ' +
      'strategy version, by listing id or strategy id, but never read its source. Own listing: 403; bought already (or paying): ' +
      '409; payment provider down: 503 and nothing is recorded.',
    params: listingParams, body: M.PurchaseBody, successStatus: 201, response: M.Purchase,
    errors: ['NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'UNAVAILABLE'],
  }),
  'marketplace.reviews': defineRoute({
    method: 'GET', path: '/api/marketplace/:id/reviews', summary: 'Reviews of a listing, newest first',
    description:
      "With `mine=true`, only the caller's own review of the listing: a list of zero or one (`nextCursor` null), never " +
      "another user's. `mine` is `true` or `false`; any other value is 400 `VALIDATION_FAILED`.",
    params: listingParams, query: M.ReviewsQuery, successStatus: 200, response: M.ReviewList, errors: ['NOT_FOUND'],
  }),
  'marketplace.review': defineRoute({
    method: 'POST', path: '/api/marketplace/:id/reviews', summary: 'Review a listing you bought (one per buyer)',
    description:
      'Only buyers (a completed purchase) may review (others: 403), once (a second: 409 `CONFLICT` with ' +
      '`details: { reviewId }`, the review to edit with PUT). `text` is stored and ' +
      'returned exactly as given: clients must escape it when rendering. The listing\'s `averageRating` and `reviewCount` change with the review.',
    params: listingParams, body: M.ReviewBody, successStatus: 201, response: M.Review,
    errors: ['NOT_FOUND', 'FORBIDDEN', 'CONFLICT'],
  }),
  'marketplace.updateReview': defineRoute({
    method: 'PUT', path: '/api/marketplace/:id/reviews/:reviewId', summary: 'Edit your own review',
    params: z.strictObject({ id: ListingId, reviewId: ReviewId }), body: M.ReviewBody, successStatus: 200, response: M.Review,
    errors: ['NOT_FOUND'],
  }),

  // ---- billing ----
  'billing.subscription': defineRoute({
    method: 'GET', path: '/api/billing/subscription', summary: "The caller's subscription (`free`/`active` when none)",
    successStatus: 200, response: Bi.Subscription, errors: [],
  }),
  'billing.checkout': defineRoute({
    method: 'POST', path: '/api/billing/checkout', summary: "A checkout address at the payment provider",
    body: Bi.CheckoutBody, successStatus: 200, response: Bi.UrlResponse, errors: ['CONFLICT', 'UNAVAILABLE'],
  }),
  'billing.portal': defineRoute({
    method: 'POST', path: '/api/billing/portal', summary: "A customer portal address at the payment provider",
    body: Bi.PortalBody, successStatus: 200, response: Bi.UrlResponse, errors: ['UNAVAILABLE'],
  }),
  'billing.usage': defineRoute({
    method: 'GET', path: '/api/billing/usage', summary: 'Usage counters of the current billing period',
    description:
      '`compute`: CPU-seconds of sandboxed execution (backtests and deployments) this period; `backtests`: backtests started this ' +
      'period; `deployments`: deployments active now. The period is the subscription\'s current period, or the calendar month (UTC) ' +
      'on the free plan; counters reset each period. Limits come from the plan table (free / pro / team).',
    successStatus: 200, response: Bi.Usage, errors: [],
  }),
  'billing.invoices': defineRoute({
    method: 'GET', path: '/api/billing/invoices', summary: 'Invoices with download URLs, newest first',
    query: Bi.InvoicesQuery, successStatus: 200, response: Bi.InvoiceList, errors: ['UNAVAILABLE'],
  }),
  'billing.webhook': defineRoute({
    method: 'POST', path: '/api/billing/webhook', summary: "The payment provider's webhook (signature-authenticated)",
    description:
      'The raw body, verified with the provider\'s signature (Stripe: `Stripe-Signature`, 300 s tolerance); a missing or bad ' +
      'signature is a 400. Each event id is processed once; an event older than the stored state never moves a subscription back.',
    auth: 'webhook', rawBody: true, successStatus: 200, response: Bi.WebhookAck, errors: [],
  }),
  // ---- notifications ----
  'notifications.list': defineRoute({
    method: 'GET', path: '/api/notification-channels', summary: "The caller's notification channels, newest first",
    query: N.ListNotificationChannelsQuery, successStatus: 200, response: N.NotificationChannelList, errors: [],
  }),
  'notifications.get': defineRoute({
    method: 'GET', path: '/api/notification-channels/:id', summary: 'One notification channel (never its secrets)',
    params: channelParams, successStatus: 200, response: N.NotificationChannel, errors: ['NOT_FOUND'],
  }),
  'notifications.create': defineRoute({
    method: 'POST', path: '/api/notification-channels', summary: 'Add a channel: a signed webhook, a Telegram chat or a Discord webhook',
    description:
      'The target is checked now: its host must resolve to public addresses only (private, loopback, link-local and metadata addresses ' +
      'are refused with 400 unless the operator admits the host with `STRATBOX_NOTIFY_ALLOW_HOSTS`), and a webhook URL must be HTTPS. ' +
      "A webhook channel's `signingSecret` is in this answer only. At most the plan's number of channels (402 `PLAN_LIMIT_EXCEEDED`).",
    body: N.CreateNotificationChannelBody, successStatus: 201, response: N.CreatedNotificationChannel, errors: ['PLAN_LIMIT_EXCEEDED'],
  }),
  'notifications.update': defineRoute({
    method: 'PUT', path: '/api/notification-channels/:id', summary: 'Change a channel, pause it or resume it',
    params: channelParams, body: N.UpdateNotificationChannelBody, successStatus: 200, response: N.NotificationChannel, errors: ['NOT_FOUND'],
  }),
  'notifications.delete': defineRoute({
    method: 'DELETE', path: '/api/notification-channels/:id', summary: 'Delete a channel and its delivery log',
    params: channelParams, successStatus: 204, response: null, errors: ['NOT_FOUND'],
  }),
  'notifications.test': defineRoute({
    method: 'POST', path: '/api/notification-channels/:id/test', summary: 'Send a `notification.test` event to this channel now and answer how it went',
    description:
      'One attempt, made before the answer, through the same signed, guarded path as every delivery; it is logged with the ' +
      "channel's deliveries. A refused or failed attempt is still a 200: read `status`, `lastStatusCode` and `lastError`.",
    params: channelParams, successStatus: 200, response: N.NotificationDelivery, errors: ['NOT_FOUND'],
  }),
  'notifications.deliveries': defineRoute({
    method: 'GET', path: '/api/notification-channels/:id/deliveries', summary: "A channel's delivery log, newest first",
    params: channelParams, query: N.ListNotificationDeliveriesQuery, successStatus: 200, response: N.NotificationDeliveryList, errors: ['NOT_FOUND'],
  }),
  'notifications.events': defineRoute({
    method: 'GET', path: '/api/notification-events', summary: "The caller's events, newest first (what the channels were sent)",
    query: N.ListNotificationEventsQuery, successStatus: 200, response: N.NotificationEventList, errors: [],
  }),
} as const;

export type Routes = typeof routes;
export type RouteKey = keyof Routes;
export const routeKeys = Object.keys(routes) as RouteKey[];

type Input<T> = T extends z.ZodType ? z.input<T> : never;
type Output<T> = T extends z.ZodType ? z.output<T> : never;

/** What a caller sends for a route: `params`, `query`, `body`, each present only if the route has it. */
export type RouteInput<K extends RouteKey> = (Routes[K] extends { params: infer P } ? { params: Input<P> } : {}) &
  (Routes[K] extends { query: infer Q } ? { query?: Input<Q> } : {}) &
  (Routes[K] extends { body: infer B } ? (undefined extends Input<B> ? { body?: Input<B> } : { body: Input<B> }) : {});

/** What a route's handler receives after validation. */
export type RouteParsedInput<K extends RouteKey> = {
  params: Routes[K] extends { params: infer P } ? Output<P> : Record<string, never>;
  query: Routes[K] extends { query: infer Q } ? Output<Q> : Record<string, never>;
  body: Routes[K] extends { body: infer B } ? Output<B> : undefined;
};

/** The success body of a route (`void` for 204). */
// biome-ignore lint/suspicious/noConfusingVoidType: a 204 route's call resolves to nothing, which void says
export type RouteOutput<K extends RouteKey> = Routes[K]['response'] extends z.ZodType ? z.output<Routes[K]['response']> : void;
