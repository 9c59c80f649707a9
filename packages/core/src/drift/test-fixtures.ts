import { DEFAULT_DRIFT_THRESHOLDS, type DriftInput, type LiveFill, type RecordedCandle, type RecordedIntent, type ReplayOrder } from './drift-types.js';

/*
 * A hand-checkable deployment for the drift tests: one symbol, ten daily candles, three market
 * orders of quantity 10 (buy decided on day 1, sell on day 5, buy on day 7), a model with 5 bps
 * slippage and a 0.06 % taker fee. The replay fills each at the next open moved by slippage;
 * the live side is the same unless a test bends its fills. Both equity curves are computed by
 * the same account arithmetic (cash + position × close), from each side's own fills.
 */

export const DAY = 86_400_000;
export const DEP = 'dep_drifttestfixture01';
export const T0 = Date.UTC(2026, 0, 1);
export const SYMBOL = 'BTC/USDT:USDT';
export const OPENS = [100, 100, 102.5, 101, 105, 107.5, 104, 106, 108.5, 107];
export const CLOSES = [100, 102, 101, 105, 107, 104, 106, 108, 107, 110];
export const CAPITAL = 10_000;
export const SLIPPAGE = 0.0005;
export const TAKER = 0.0006;
export const QUANTITY = 10;
/** Candle index of each decision, and its side. */
export const DECISIONS: Array<{ candle: number; side: 'buy' | 'sell' }> = [
  { candle: 1, side: 'buy' },
  { candle: 5, side: 'sell' },
  { candle: 7, side: 'buy' },
];
/** Live fills arrive this long after the replay's (the open of the next candle). */
export const LIVE_DELAY_MS = 5_000;

const t = (candle: number) => T0 + candle * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

interface Fill {
  candle: number;
  side: 'buy' | 'sell';
  price: number;
  quantity: number;
  fee: number;
}

/** Equity at each candle's close from fills applied at their candle's open. */
export function equityPath(fills: readonly Fill[]): number[] {
  let cash = CAPITAL;
  let position = 0;
  return CLOSES.map((close, i) => {
    for (const f of fills) {
      if (f.candle !== i) continue;
      const sign = f.side === 'buy' ? 1 : -1;
      cash -= sign * f.price * f.quantity + f.fee;
      position += sign * f.quantity;
    }
    return cash + position * close;
  });
}

/** The replay's fills: next open × (1 ± slippage), taker fee. */
export function replayFillsOf(): Fill[] {
  return DECISIONS.map(({ candle, side }) => {
    const price = OPENS[candle + 1]! * (1 + (side === 'buy' ? SLIPPAGE : -SLIPPAGE));
    return { candle: candle + 1, side, price, quantity: QUANTITY, fee: price * QUANTITY * TAKER };
  });
}

export interface ScenarioOptions {
  /** Changes a live fill (index into DECISIONS); return null to drop it. */
  liveFill?: (fill: Fill, index: number) => Fill | null;
  /** Decisions (indexes) the live run did not make. */
  skipIntents?: number[];
  runs?: DriftInput['live']['runs'];
  downtime?: number[];
}

export function scenario(options: ScenarioOptions = {}): DriftInput {
  const replay = replayFillsOf();
  const liveByDecision = replay.map((f, i) => (options.liveFill ? options.liveFill({ ...f }, i) : { ...f }));
  const live = liveByDecision.filter((f): f is Fill => f !== null);
  const replayEquity = equityPath(replay);
  const liveEquity = equityPath(live);
  const downtime = new Set(options.downtime ?? []);
  const orders: ReplayOrder[] = DECISIONS.map((d, i) => ({
    id: `o${i + 1}`,
    candleTime: t(d.candle),
    source: 'candle',
    symbol: SYMBOL,
    side: d.side,
    type: 'market',
    quantity: QUANTITY,
    size: null,
    price: null,
    reduceOnly: false,
    closeAll: false,
    tag: null,
    status: 'filled',
    fillTime: t(replay[i]!.candle),
    fillPrice: replay[i]!.price,
    fillQuantity: QUANTITY,
    fee: replay[i]!.fee,
  }));
  const intents: RecordedIntent[] = DECISIONS.flatMap((d, i) =>
    options.skipIntents?.includes(i)
      ? []
      : [
          {
            id: `int_${i + 1}`,
            deploymentId: DEP,
            candleTime: t(d.candle),
            source: 'candle' as const,
            kind: 'place' as const,
            symbol: SYMBOL,
            side: d.side,
            type: 'market' as const,
            quantity: QUANTITY,
            size: null,
            price: null,
            reduceOnly: false,
            closeAll: false,
            tag: null,
            guestId: `g${i + 1}`,
            recordedAt: iso(t(d.candle + 1) + 1_000),
          },
        ],
  );
  const fills: LiveFill[] = [];
  liveByDecision.forEach((f, i) => {
    if (f)
      fills.push({
        orderId: `ord_${i + 1}`,
        guestId: `g${i + 1}`,
        symbol: SYMBOL,
        side: f.side,
        quantity: f.quantity,
        price: f.price,
        fee: f.fee,
        time: t(f.candle) + LIVE_DELAY_MS,
      });
  });
  const candles: RecordedCandle[] = CLOSES.flatMap((close, i) =>
    downtime.has(i)
      ? []
      : [
          {
            deploymentId: DEP,
            symbol: SYMBOL,
            time: t(i),
            open: OPENS[i]!,
            high: Math.max(OPENS[i]!, close) + 1,
            low: Math.min(OPENS[i]!, close) - 1,
            close,
            volume: 1,
            equity: liveEquity[i]!,
            recordedAt: iso(t(i + 1) + 500),
          },
        ],
  );
  return {
    deploymentId: DEP,
    strategyVersion: 1,
    symbols: [SYMBOL],
    stepMs: DAY,
    window: { from: T0, to: t(CLOSES.length) },
    computedAt: iso(t(CLOSES.length) + 60_000),
    live: {
      candles,
      intents,
      fills,
      runs: options.runs ?? [{ deploymentId: DEP, startedAt: iso(T0 - 60_000), startEquity: CAPITAL, resumed: false }],
      funding: 0,
    },
    replay: {
      downtimeCandles: [...downtime].map((i) => ({ symbol: SYMBOL, time: t(i) })),
      orders,
      equityCurve: replayEquity.map((equity, i) => ({ time: t(i), equity })),
      initialCapital: CAPITAL,
      finalEquity: replayEquity[replayEquity.length - 1]!,
      fees: replay.reduce((s, f) => s + f.fee, 0),
      funding: 0,
      cpuMs: 12,
    },
    model: { slippage: SLIPPAGE, fees: { maker: 0.0002, taker: TAKER } },
    thresholds: DEFAULT_DRIFT_THRESHOLDS,
  };
}
