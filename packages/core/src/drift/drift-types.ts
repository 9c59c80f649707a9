import type { DriftReport, DriftThresholds } from '@stratbox/contract';
import type { LiveExitKind } from '../engine/model/codes.js';

/*
 * The shared vocabulary of the drift report (docs/drift.md), in three parts:
 *   1. what a live or paper deployment records as it runs (the Store port: ports/store-drift.ts);
 *   2. what a replay backtest answers besides its result (the order journal of BacktestRunOutput);
 *   3. what the pure comparison (compute-drift.ts) takes and gives.
 */

// ---- 1. The recording ------------------------------------------------------------------------

/** One closed candle delivered to the strategy's `onCandle` by a live run, with the account it was shown. */
export interface RecordedCandle {
  deploymentId: string;
  symbol: string;
  /** Open time (epoch ms), as the strategy saw it. */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** The account equity the strategy was shown with this candle. */
  equity: number;
  /** When the runner delivered it (ISO). */
  recordedAt: string;
}

/** One order intent the strategy made, recorded when its call returned, before anything was sent. */
export interface RecordedIntent {
  /** Unique per intent (`int_...`). */
  id: string;
  deploymentId: string;
  /** Open time (epoch ms) of the last candle delivered for the intent's symbol when the strategy asked. */
  candleTime: number;
  /** Which call made it: `onCandle` of that candle, or `onOrder` after it. */
  source: 'candle' | 'order';
  kind: 'place' | 'cancel';
  symbol: string;
  side: 'buy' | 'sell' | null;
  /**
   * As placed; a close the runtime made for a crossed stop-loss, take-profit or trailing stop
   * carries its exit kind (`stopLoss`, `takeProfit`, `trailingStop`), as the replay's journal does.
   */
  type: 'market' | 'limit' | 'stop' | LiveExitKind | null;
  quantity: number | null;
  /** Fraction of equity (`size` orders). */
  size: number | null;
  price: number | null;
  reduceOnly: boolean;
  closeAll: boolean;
  tag: string | null;
  /** The id the strategy knows the order by. */
  guestId: string;
  recordedAt: string;
}

/** One run of a deployment: a start by its owner, or a resume after a restart of the service. */
export interface RecordedRun {
  deploymentId: string;
  startedAt: string;
  /** The account equity when the run started (null when the exchange could not be read). */
  startEquity: number | null;
  resumed: boolean;
}

// ---- 2. The replay's order journal -----------------------------------------------------------

/** One order of a replay backtest, from the intent to its outcome. */
export interface ReplayOrder {
  /** The guest's order id (`o1`, `o2`...). */
  id: string;
  /** Open time of the candle whose `onCandle` (or an `onOrder` while processing it) placed the order. */
  candleTime: number;
  source: 'candle' | 'order';
  symbol: string;
  side: 'buy' | 'sell';
  /** As placed (`market`, `limit`, `stop`), or the exit kind for the engine's own stop-loss / take-profit / trailing closes. */
  type: string;
  quantity: number | null;
  size: number | null;
  price: number | null;
  reduceOnly: boolean;
  closeAll: boolean;
  tag: string | null;
  status: 'filled' | 'cancelled' | 'rejected' | 'open';
  /** Fill time (epoch ms; the open of the candle it filled on), or null. */
  fillTime: number | null;
  fillPrice: number | null;
  fillQuantity: number;
  fee: number;
}

// ---- 3. The comparison ------------------------------------------------------------------------

/** A live fill, from the deployment's order records. */
export interface LiveFill {
  orderId: string;
  /** The strategy's id for the order (from the intent), when known. */
  guestId: string | null;
  symbol: string;
  side: 'buy' | 'sell';
  quantity: number;
  price: number;
  fee: number;
  /** Epoch ms of the order's last change (its fill). */
  time: number;
}

export interface DriftInput {
  deploymentId: string;
  strategyVersion: number;
  symbols: string[];
  /** The timeframe's period (ms). */
  stepMs: number;
  window: { from: number; to: number };
  computedAt: string;
  live: {
    candles: RecordedCandle[];
    intents: RecordedIntent[];
    fills: LiveFill[];
    runs: RecordedRun[];
    /** Funding the exchange charged (positive: paid), when the gateway can tell; else null. */
    funding: number | null;
  };
  replay: {
    /** Candle open times of the window the live run did not process (filled from market data). */
    downtimeCandles: Array<{ symbol: string; time: number }>;
    orders: ReplayOrder[];
    equityCurve: Array<{ time: number; equity: number }>;
    initialCapital: number;
    finalEquity: number;
    fees: number;
    funding: number;
    cpuMs: number;
  };
  model: { slippage: number; fees: { maker: number; taker: number } };
  thresholds: DriftThresholds;
}

export type DriftReportData = DriftReport;

/** The thresholds a deployment has until its owner sets others. */
export const DEFAULT_DRIFT_THRESHOLDS: DriftThresholds = { minCorrelation: 0.8, maxDtw: 0.2, maxSlippageRatio: 5, parityMiss: true };
