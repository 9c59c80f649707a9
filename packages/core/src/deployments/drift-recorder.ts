import { randomBytes } from 'node:crypto';
import type { RecordedCandle, RecordedIntent, RecordedRun } from '../drift/drift-types.js';
import type { LiveAccountState, LiveCandle, LiveIntent } from './live-session.js';

/*
 * The rows a running deployment records for its drift report (docs/drift.md, ports/store-drift.ts):
 * each candle delivered to `onCandle` with the equity the strategy was shown, each intent of the
 * strategy at the candle it was made on, and each run. Pure: the runner writes what it builds,
 * before anything the intents ask for is sent.
 */

export interface DriftRecorder {
  /** The candle as `onCandle` got it, with the equity of the account it was shown. */
  candle(candle: LiveCandle, equity: number): RecordedCandle;
  /**
   * The intents of one call. `candleTime` gives, per symbol, the open time of the candle the
   * intent belongs to; `state` is the account the call was shown (a cancel names its order by the
   * strategy's id only: its symbol comes from that order).
   */
  intents(intents: readonly LiveIntent[], source: RecordedIntent['source'], candleTime: (symbol: string) => number, state: LiveAccountState): RecordedIntent[];
  run(startedAt: string, resumed: boolean, startEquity: number | null): RecordedRun;
}

/** A new intent id (`int_` and 128 random bits, URL-safe). */
export const newIntentId = () => `int_${randomBytes(16).toString('base64url')}`;

/** The recorder of one deployment; `now` gives the time rows are recorded at (ISO). */
export function createDriftRecorder(deploymentId: string, now: () => string): DriftRecorder {
  /** The symbol of each order the strategy placed in this run, by its id (for its cancels). */
  const symbolOf = new Map<string, string>();

  return {
    candle(candle, equity) {
      return {
        deploymentId,
        symbol: candle.symbol,
        time: candle.time,
        open: candle.open,
        high: candle.high,
        low: candle.low,
        close: candle.close,
        volume: candle.volume,
        equity,
        recordedAt: now(),
      };
    },

    intents(intents, source, candleTime, state) {
      const recordedAt = now();
      return intents.map((intent): RecordedIntent => {
        if (intent.kind === 'cancel') {
          const symbol = state.orders.find((o) => o.id === intent.id)?.symbol ?? symbolOf.get(intent.id) ?? '';
          return {
            id: newIntentId(),
            deploymentId,
            candleTime: candleTime(symbol),
            source,
            kind: 'cancel',
            symbol,
            side: null,
            type: null,
            quantity: null,
            size: null,
            price: null,
            reduceOnly: false,
            closeAll: false,
            tag: null,
            guestId: intent.id,
            recordedAt,
          };
        }
        const o = intent.order;
        symbolOf.set(o.id, o.symbol);
        return {
          id: newIntentId(),
          deploymentId,
          candleTime: candleTime(o.symbol),
          source,
          kind: 'place',
          symbol: o.symbol,
          side: o.side,
          // The runtime's own close for a crossed level is recorded as its exit kind, as the replay's journal has it.
          type: o.exit ?? o.type,
          quantity: o.quantity,
          size: o.size,
          price: o.price,
          reduceOnly: o.reduceOnly,
          closeAll: o.closeAll,
          tag: o.tag,
          guestId: o.id,
          recordedAt,
        };
      });
    },

    run(startedAt, resumed, startEquity) {
      return { deploymentId, startedAt, startEquity, resumed };
    },
  };
}
