import type { CandleSeries } from '../ports/market-data.js';
import type { BacktestResultRecord } from '../ports/store.js';

/** What a strategy declares about itself in `export const meta`. */
export interface StrategyInfo {
  timeframe?: string | undefined;
  warmup?: number | undefined;
  params?: Record<string, unknown> | undefined;
}

export interface BacktestRunInput {
  /** The stored strategy source (TypeScript or JavaScript). */
  source: string;
  /** One series per symbol, same timeframe. Candles before `startTime` only warm up indicators. */
  series: CandleSeries[];
  /** First candle time (ms) that is traded and marked. Default: the first candle. */
  startTime?: number;
  fees: { maker: number; taker: number };
  leverage: number;
  slippage: number;
  initialCapital: number;
  /** Request params (strings), parsed against `meta.params` by the executor. */
  params: Record<string, string>;
  marketType: 'LINEAR' | 'SPOT';
  /** Seeds the guest's PRNG, so a run can be repeated exactly. */
  seed: number;
  /**
   * Funding events per symbol (LINEAR only): at each `time` (epoch ms, strictly ascending) an
   * open position pays its notional times `rate`. A symbol without an entry pays no funding.
   * Default: none.
   */
  funding?: Record<string, { time: Float64Array; rate: Float64Array }>;
}

export interface BacktestRunOutput extends Omit<BacktestResultRecord, 'backtestId' | 'tradeCount'> {
  /** CPU milliseconds of sandboxed execution. */
  computeMs: number;
}

/** Who a run or check is for, so that users take turns for the sandbox. */
export interface TenantOption {
  /** The user id; runs of different users take turns, and each user has a cap on runs at once. */
  tenant?: string;
}

/**
 * Runs strategy code in the sandbox. The only way user code executes. Failures reject with an
 * error that has a string `code`, a message written for the strategy's author, and `cpuMs`: the
 * CPU time the run used before it ended (for usage metering, however it ended).
 */
export interface BacktestExecutor {
  /** Reads `meta` without running `onCandle`; rejects with StratboxError VALIDATION_FAILED for an invalid strategy. */
  inspect(source: string, options?: TenantOption): Promise<StrategyInfo>;
  /** Throws StratboxError VALIDATION_FAILED (400) when `params` do not match `meta.params`. */
  checkParams(info: StrategyInfo, params: Record<string, string>): void;
  run(
    input: BacktestRunInput,
    options: TenantOption & { signal: AbortSignal; onProgress: (processedBars: number, totalBars: number) => void },
  ): Promise<BacktestRunOutput>;
  close(): Promise<void>;
}
