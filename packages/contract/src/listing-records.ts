import { z } from 'zod';
import { MarketSymbol, MarketType, ParamMap, Timeframe, Timestamp } from './common.js';
import { ListingId, VerificationRecordId } from './ids.js';

/**
 * Verified listings (docs/verified-listings.md): performance the platform measured itself, on
 * the exact version a buyer runs. A record is computed by the platform and never editable by
 * the seller; it never reveals the source.
 */

/** How much forward evidence a record has (thresholds are the operator's; defaults in the docs). */
export const EvidenceBadge = z.enum(['insufficient', 'emerging', 'established']);
export type EvidenceBadge = z.infer<typeof EvidenceBadge>;
export const BADGE_RANK: Readonly<Record<EvidenceBadge, number>> = { insufficient: 0, emerging: 1, established: 2 };

/** The operator's badge thresholds, so a reader can tell what a badge means (defaults 90 days / 30 trades and 180 days / 100 trades). */
export const BadgeThresholds = z.object({
  emergingDays: z.number().meta({ description: 'Below this many forward days: `insufficient`' }),
  emergingTrades: z.number().meta({ description: 'Below this many forward trades: `insufficient`' }),
  establishedDays: z.number().meta({ description: 'From this many forward days, with `establishedTrades`: `established`' }),
  establishedTrades: z.number().meta({ description: 'From this many forward trades, with `establishedDays`: `established`' }),
});
export type BadgeThresholds = z.infer<typeof BadgeThresholds>;

/** The figures of one segment (the platform backtest, or the forward record). Null where the segment is too short to tell. */
export const RecordMetrics = z.object({
  totalReturn: z.number().nullable(),
  cagr: z.number().nullable(),
  maxDrawdown: z.number().nullable(),
  maxDrawdownRecoveryDays: z.number().nullable().meta({ description: 'Days from the deepest drawdown back to the previous peak; null when not recovered' }),
  sharpe: z.number().nullable(),
  psr: z.number().nullable().meta({ description: 'Probabilistic Sharpe Ratio against a Sharpe of 0' }),
  dsr: z.number().nullable().meta({ description: 'Deflated Sharpe Ratio, with the search effort as its number of trials (backtest segment)' }),
  exposure: z.number().nullable().meta({ description: 'Share of the time a position was open (0..1)' }),
  tradeCount: z.number().int(),
  feesPaid: z.number(),
  fundingPaid: z.number(),
});
export type RecordMetrics = z.infer<typeof RecordMetrics>;

export const RecordEquityPoint = z.object({ time: Timestamp, equity: z.number() });

/** What the platform ran: a buyer runs exactly this. */
export const RecordIdentity = z.object({
  strategyVersion: z.number().int(),
  sourceSha256: z.string(),
  params: ParamMap.meta({ description: "The parameters it ran with (the strategy's declared defaults)" }),
  symbols: z.array(MarketSymbol),
  timeframe: Timeframe,
  marketType: MarketType,
  fees: z.object({ maker: z.number(), taker: z.number() }),
  slippage: z.number(),
  funding: z.boolean(),
  initialCapital: z.number(),
});

export const RecordStatus = z.enum(['pending', 'ready', 'failed']);

/** One version's verification record. */
export const VerificationRecord = z.object({
  id: VerificationRecordId,
  listingId: ListingId,
  status: RecordStatus.meta({ description: '`pending` until the platform backtest is done; `failed` when it could not run (`error` says why)' }),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  identity: RecordIdentity,
  backtest: z
    .object({
      start: Timestamp,
      end: Timestamp,
      metrics: RecordMetrics,
      equity: z.array(RecordEquityPoint).meta({ description: 'Downsampled' }),
    })
    .nullable(),
  forward: z.object({
    start: Timestamp.meta({ description: 'When the forward record started: the listing (or version) time' }),
    lastCandleAt: Timestamp.nullable(),
    candles: z.number().int(),
    days: z.number(),
    metrics: RecordMetrics.nullable(),
    equity: z.array(RecordEquityPoint).meta({ description: 'Downsampled' }),
  }),
  searchEffort: z.object({
    backtests: z.number().int(),
    trials: z.number().int(),
    total: z
      .number()
      .int()
      .meta({ description: "Backtests plus optimization trials the seller ran on this strategy (all versions) before listing: the DSR's number of trials" }),
  }),
  badge: EvidenceBadge,
  createdAt: Timestamp,
  supersededAt: Timestamp.nullable().meta({ description: 'When a newer version replaced it; null for the current record' }),
});
export type VerificationRecord = z.infer<typeof VerificationRecord>;

/** A performance figure the seller's description states, with the verified one beside it. */
export const CheckedClaim = z.object({
  text: z.string().meta({ description: 'The words of the description that state it, e.g. "+300 % in backtests"' }),
  kind: z.enum(['return', 'drawdown', 'sharpe']),
  claimed: z.number(),
  verified: z.number().nullable().meta({ description: "The platform backtest's figure of the same kind (null while pending)" }),
});

/** `GET /api/marketplace/:id/record`: the current record, its lineage, and the claims checked. */
export const ListingRecordDetail = z.object({
  listingId: ListingId,
  name: z.string().meta({ description: "The listing's name (kept after it is unlisted)" }),
  listed: z.boolean().meta({ description: 'False once delisted: the record stays readable for good' }),
  current: VerificationRecord.nullable(),
  lineage: z.array(VerificationRecord).meta({ description: "Earlier versions' records, newest first" }),
  claims: z.array(CheckedClaim),
  thresholds: BadgeThresholds,
  buyers: z
    .object({
      count: z.number().int(),
      medianReturn: z.number(),
      forwardReturnSameDays: z.number().nullable(),
    })
    .nullable()
    .meta({
      description:
        'Once at least 3 buyers run it live or on paper: the median of their realized return since purchase, beside the forward record over the same days',
    }),
});

/** The summary a listing carries in search. */
export const ListingRecordSummary = z.object({
  badge: EvidenceBadge,
  status: RecordStatus,
  backtestReturn: z.number().nullable(),
  forwardReturn: z.number().nullable(),
  forwardSharpe: z.number().nullable(),
  forwardDays: z.number(),
  forwardTrades: z.number().int(),
  dsr: z.number().nullable(),
  searchEffort: z.number().int(),
});
export type ListingRecordSummary = z.infer<typeof ListingRecordSummary>;

/** Sort keys of `GET /api/marketplace`. */
export const ListingSort = z.enum(['newest', 'forwardReturn', 'forwardSharpe', 'dsr', 'forwardDays']);

export const recordParams = z.strictObject({ id: ListingId });
