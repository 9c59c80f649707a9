import { describe, expect, it } from 'vitest';
import type { BacktestRecord, BacktestResultRecord, Store } from '../ports/store.js';
import { at, uid } from './contract-fixtures.js';

/*
 * The Store contract of a backtest's stored trades (`saveResult`, `getResult`, `listTrades`),
 * run by `describeStoreContract` with its shared store and users.
 */

export type BacktestTradesContext = () => { store: Store; userId: string; otherUserId: string; backtest: (userId: string) => BacktestRecord };

/**
 * The results as saved, read back through the port: `getResult` (which must say how many trades
 * are stored) and every trade through `listTrades`. Null when `getResult` is.
 */
export async function readResult(store: Pick<Store, 'backtests'>, userId: string, backtestId: string): Promise<BacktestResultRecord | null> {
  const summary = await store.backtests.getResult(userId, backtestId);
  if (!summary) return null;
  const { storedTradeCount, ...rest } = summary;
  const trades = await store.backtests.listTrades(userId, backtestId, { limit: storedTradeCount + 10 });
  expect(trades.map((t) => t.seq)).toEqual(trades.map((_, i) => i));
  expect(trades).toHaveLength(storedTradeCount);
  return { ...rest, trades: trades.map((t) => t.trade) };
}

/** `n` distinct trades, the i-th entering at second i (JSON as the engine makes them). */
export const numberedTrades = (n: number, tag = 'x') =>
  Array.from({ length: n }, (_, i) => ({
    symbol: i % 2 ? 'ETH/USDT:USDT' : 'BTC/USDT:USDT',
    side: i % 2 ? 'short' : 'long',
    entryTime: at(i),
    entryPrice: 100 + i / 7,
    exitTime: at(i + 1),
    exitPrice: 101 + i / 3,
    quantity: 0.001 * (i + 1),
    pnl: i % 3 === 0 ? -(i + 1) / 11 : i / 13,
    fees: 0.01,
    exitReason: `${tag}${i}`,
  }));

export function describeBacktestTradesContract(context: BacktestTradesContext): void {
  describe('backtest trades', () => {
    async function saved(trades: Array<Record<string, unknown>>, tradeCount = trades.length, owner = context().userId) {
      const { store, backtest } = context();
      const record = backtest(owner);
      await store.backtests.insert({ ...record, status: 'completed' });
      const result: BacktestResultRecord = { backtestId: record.id, equityCurve: [{ time: at(0), equity: 1 }], trades, tradeCount, metrics: { tradeCount } };
      await store.backtests.saveResult(result);
      return { id: record.id, result };
    }

    it('getResult reports the trades made and stored, and reads no trade', async () => {
      const { store, userId } = context();
      const { id } = await saved(numberedTrades(3), 9_999);
      expect(await store.backtests.getResult(userId, id)).toEqual({
        backtestId: id,
        equityCurve: [{ time: at(0), equity: 1 }],
        metrics: { tradeCount: 9_999 },
        tradeCount: 9_999,
        storedTradeCount: 3,
      });
    });

    it('listTrades pages by seq: strictly after afterSeq, at most limit, in the order saved, with no gap or duplicate', async () => {
      const { store, userId } = context();
      // more than one insert batch of the SQL stores
      const trades = numberedTrades(2_345);
      const { id } = await saved(trades, 5_000);
      const read: Array<Record<string, unknown>> = [];
      const seqs: number[] = [];
      let afterSeq: number | undefined;
      for (let i = 0; i < 100; i++) {
        const page = await store.backtests.listTrades(userId, id, afterSeq === undefined ? { limit: 200 } : { limit: 200, afterSeq });
        read.push(...page.map((t) => t.trade));
        seqs.push(...page.map((t) => t.seq));
        if (page.length < 200) break;
        afterSeq = page[page.length - 1]!.seq;
      }
      expect(seqs).toEqual(trades.map((_, i) => i));
      expect(read).toEqual(trades);
      expect(await store.backtests.listTrades(userId, id, { limit: 3, afterSeq: 10 })).toEqual([11, 12, 13].map((seq) => ({ seq, trade: trades[seq] })));
      expect(await store.backtests.listTrades(userId, id, { limit: 50, afterSeq: 2_344 })).toEqual([]);
      expect(await store.backtests.listTrades(userId, id, { limit: 0 })).toEqual([]);
      expect(await store.backtests.listTrades(userId, id, { limit: 2, afterSeq: -1 })).toEqual([0, 1].map((seq) => ({ seq, trade: trades[seq] })));
    });

    it('saveResult replaces every earlier trade: none of a longer earlier list is left', async () => {
      const { store, userId } = context();
      const { id } = await saved(numberedTrades(1_500, 'old'));
      const fewer = numberedTrades(2, 'new');
      await store.backtests.saveResult({ backtestId: id, equityCurve: [], trades: fewer, tradeCount: 2, metrics: {} });
      expect(await store.backtests.listTrades(userId, id, { limit: 2_000 })).toEqual(fewer.map((trade, seq) => ({ seq, trade })));
      expect((await store.backtests.getResult(userId, id))?.storedTradeCount).toBe(2);
      await store.backtests.saveResult({ backtestId: id, equityCurve: [], trades: [], tradeCount: 0, metrics: {} });
      expect(await store.backtests.listTrades(userId, id, { limit: 10 })).toEqual([]);
    });

    it("listTrades is empty for another user's backtest, a missing one, or one without results", async () => {
      const { store, userId, otherUserId, backtest } = context();
      const { id: theirs } = await saved(numberedTrades(5), 5, otherUserId);
      expect(await store.backtests.listTrades(otherUserId, theirs, { limit: 10 })).toHaveLength(5);
      expect(await store.backtests.listTrades(userId, theirs, { limit: 10 })).toEqual([]);
      expect(await store.backtests.listTrades(userId, uid('bt'), { limit: 10 })).toEqual([]);
      const bare = backtest(userId);
      await store.backtests.insert(bare);
      expect(await store.backtests.listTrades(userId, bare.id, { limit: 10 })).toEqual([]);
    });

    it("keeps each backtest's trades apart", async () => {
      const { store, userId } = context();
      const a = await saved(numberedTrades(4, 'a'));
      const b = await saved(numberedTrades(6, 'b'));
      expect(await readResult(store, userId, a.id)).toEqual(a.result);
      expect(await readResult(store, userId, b.id)).toEqual(b.result);
    });

    it('a saveResult rolled back with its transaction leaves the earlier trades', async () => {
      const { store, userId } = context();
      const { id, result } = await saved(numberedTrades(1_200, 'kept'));
      const error = new Error('rollback');
      await expect(
        store.transaction(async (tx) => {
          await tx.backtests.saveResult({ backtestId: id, equityCurve: [], trades: numberedTrades(1_100, 'doomed'), tradeCount: 1_100, metrics: {} });
          expect((await tx.backtests.listTrades(userId, id, { limit: 1 }))[0]?.trade.exitReason).toBe('doomed0');
          throw error;
        }),
      ).rejects.toBe(error);
      expect(await readResult(store, userId, id)).toEqual(result);
    });
  });
}
