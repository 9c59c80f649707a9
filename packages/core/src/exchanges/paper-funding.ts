import type { Clock } from '../ports/clock.js';
import type { PaperState } from './paper-state.js';

/*
 * Funding on a paper account's open LINEAR positions (docs/backtest-model.md, "Paper and live
 * trading"): at each read, every funding event of an open position's symbol whose time is after
 * the last one paid and not after now is paid with the model's `payFunding`, at the price read
 * now, in time order (the backtest pays it at the open of the first candle at or after its time,
 * before that candle's market orders). A position opened by a resting order during the stretch
 * pays the events of the stretch, one opened by the call itself (after this step) the later
 * ones. When the funding source fails, the events are paid at a later call. The time up to which
 * funding is paid is kept with the account (`PaperState.fundingUpTo`), so a restart or another
 * process never pays an event twice.
 */

/** One funding event: at `time` (epoch ms) an open position pays `quantity x price x rate` (a long pays a positive rate, a short receives it). */
export interface PaperFundingEvent {
  time: number;
  rate: number;
}

/**
 * Where the paper exchange reads funding rates: the events of `symbol` with `fromMs < time <=
 * toMs` that have happened, in any order (others are ignored). A symbol without funding answers
 * `[]`; a failure (thrown or rejected) leaves the events to be paid at a later call.
 */
export type PaperFundingSource = (symbol: string, fromMs: number, toMs: number) => Promise<readonly PaperFundingEvent[]> | readonly PaperFundingEvent[];

export interface PaperFunding {
  /**
   * Pays the funding events due on the open positions: those after `fundingUpTo` (or, with
   * nothing open at the previous step, after that step) up to now, at `priceOf(symbol)` (the
   * price read in this call, else the last price seen).
   */
  fundNow(priceOf: (symbol: string) => number | undefined): Promise<void>;
  /** At the end of every call: no position, nothing owed; a position opened by the call pays the events after now. */
  closeStep(): void;
}

/** The funding of the LINEAR paper account in `state`; SPOT accounts (`linear` false) pay none. */
export function createPaperFunding(state: PaperState, linear: boolean, clock: Clock, source: PaperFundingSource | undefined): PaperFunding {
  return {
    async fundNow(priceOf) {
      if (!linear) return;
      const time = clock.now().getTime();
      const open = state.account.openSymbols();
      const from = state.fundingUpTo ?? state.lastSettle ?? time;
      state.lastSettle = time;
      if (open.length === 0) {
        state.fundingUpTo = null;
        return;
      }
      state.fundingUpTo = from;
      if (!source || !(time > from)) return;
      const due: Array<{ time: number; order: number; symbol: string; rate: number; price: number }> = [];
      for (const [order, symbol] of open.entries()) {
        const price = priceOf(symbol);
        if (price === undefined) return;
        let events: readonly PaperFundingEvent[];
        try {
          events = await source(symbol, from, time);
        } catch {
          return;
        }
        for (const e of events) if (e.time > from && e.time <= time && Number.isFinite(e.rate)) due.push({ time: e.time, order, symbol, rate: e.rate, price });
      }
      if (due.length === 0) return;
      due.sort((a, b) => a.time - b.time || a.order - b.order);
      for (const e of due) state.account.payFunding(e.symbol, e.price, e.rate);
      state.fundingUpTo = time;
    },

    closeStep() {
      if (!linear) return;
      if (state.account.openSymbols().length === 0) state.fundingUpTo = null;
      else state.fundingUpTo ??= clock.now().getTime();
    },
  };
}
