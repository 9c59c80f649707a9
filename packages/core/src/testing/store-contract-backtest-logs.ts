import { describe, expect, it } from 'vitest';
import type { BacktestLogRecord, BacktestRecord, LogPosition, Store, StoredBacktestLogRecord } from '../ports/store.js';
import { at, uid } from './contract-fixtures.js';

/*
 * The Store contract of a backtest's log lines (`saveLogs`, `listLogs`), run by
 * `describeStoreContract` with its shared store and users.
 */

export type BacktestLogsContext = () => { store: Store; userId: string; otherUserId: string; backtest: (userId: string) => BacktestRecord };

const LEVELS = ['info', 'debug', 'warn', 'error'] as const;

/** `n` lines, the i-th written at second `Math.floor(i / perSecond)` (several lines per candle time). */
export const numberedLogLines = (n: number, tag = 'line', perSecond = 3): BacktestLogRecord[] =>
  Array.from({ length: n }, (_, i) => ({ timestamp: at(Math.floor(i / perSecond)), level: LEVELS[i % 4]!, message: `${tag} ${i}` }));

const stored = (lines: readonly BacktestLogRecord[]): StoredBacktestLogRecord[] => lines.map((l, seq) => ({ ...l, seq }));

export function describeBacktestLogsContract(context: BacktestLogsContext): void {
  describe('backtest logs', () => {
    async function withLogs(lines: readonly BacktestLogRecord[], owner = context().userId) {
      const { store, backtest } = context();
      const record = backtest(owner);
      await store.backtests.insert({ ...record, status: 'completed' });
      await store.backtests.saveLogs(record.id, lines);
      return record.id;
    }

    /** Every line, page by page strictly after the last one read, and the size of each page. */
    async function readAll(userId: string, id: string, limit: number, since?: string) {
      const { store } = context();
      const lines: StoredBacktestLogRecord[] = [];
      const pages: number[] = [];
      let after: LogPosition | undefined;
      for (let i = 0; i < 1_000; i++) {
        const page = await store.backtests.listLogs(userId, id, { limit, ...(since ? { since } : {}), ...(after ? { after } : {}) });
        lines.push(...page);
        pages.push(page.length);
        const last = page[page.length - 1];
        if (page.length < limit || !last) return { lines, pages };
        after = { timestamp: last.timestamp, seq: last.seq };
      }
      throw new Error('Paging did not end');
    }

    it('reads back every line as saved, with seq 0, 1, 2... in the order saved', async () => {
      const { store, userId } = context();
      const lines: BacktestLogRecord[] = [
        { timestamp: at(0), level: 'info', message: 'loaded ✓ "quoted" \'single\' \\ back' },
        { timestamp: at(0), level: 'warn', message: '' },
        { timestamp: at(1), level: 'error', message: `multi\nline\ttab 🚀 ${'x'.repeat(5_000)}` },
        { timestamp: at(1), level: 'debug', message: '{"json":[1,2.5,null]}' },
      ];
      const id = await withLogs(lines);
      expect(await store.backtests.listLogs(userId, id, { limit: 10 })).toEqual(stored(lines));
    });

    it('lists oldest first by timestamp, lines of one timestamp in the order saved', async () => {
      const { store, userId } = context();
      const lines: BacktestLogRecord[] = [
        { timestamp: at(2), level: 'info', message: 'c' },
        { timestamp: at(1), level: 'info', message: 'a' },
        { timestamp: at(2), level: 'info', message: 'd' },
        { timestamp: at(1), level: 'info', message: 'b' },
      ];
      const id = await withLogs(lines);
      const read = await store.backtests.listLogs(userId, id, { limit: 10 });
      expect(read.map((l) => [l.message, l.seq])).toEqual([
        ['a', 1],
        ['b', 3],
        ['c', 0],
        ['d', 2],
      ]);
    });

    it('pages strictly after a position (timestamp, seq), with since and limit: every line once, in order', async () => {
      const { store, userId } = context();
      // more than one insert batch of the SQL stores
      const lines = numberedLogLines(2_345);
      const id = await withLogs(lines);
      for (const limit of [1_000, 7]) {
        const { lines: read, pages } = await readAll(userId, id, limit);
        expect(read).toEqual(stored(lines));
        expect(pages.slice(0, -1).every((n) => n === limit)).toBe(true);
      }
      const since = at(100);
      const { lines: fromSince } = await readAll(userId, id, 50, since);
      expect(fromSince).toEqual(stored(lines).filter((l) => l.timestamp >= since));
      expect(fromSince[0]?.seq).toBe(300);

      const after = { timestamp: at(10), seq: 31 };
      expect((await store.backtests.listLogs(userId, id, { after, limit: 3 })).map((l) => l.seq)).toEqual([32, 33, 34]);
      expect((await store.backtests.listLogs(userId, id, { since: at(20), after, limit: 2 })).map((l) => l.seq)).toEqual([60, 61]);
      expect((await store.backtests.listLogs(userId, id, { since: at(5), after, limit: 1 })).map((l) => l.seq)).toEqual([32]);
      const last = lines.length - 1;
      expect(await store.backtests.listLogs(userId, id, { after: { timestamp: lines[last]!.timestamp, seq: last }, limit: 10 })).toEqual([]);
      expect(await store.backtests.listLogs(userId, id, { limit: 0 })).toEqual([]);
    });

    it('saveLogs replaces every earlier line: none of a longer earlier list is left; an empty list leaves none', async () => {
      const { store, userId } = context();
      const id = await withLogs(numberedLogLines(1_200, 'old'));
      const fewer = numberedLogLines(2, 'new');
      await store.backtests.saveLogs(id, fewer);
      expect(await store.backtests.listLogs(userId, id, { limit: 2_000 })).toEqual(stored(fewer));
      await store.backtests.saveLogs(id, []);
      expect(await store.backtests.listLogs(userId, id, { limit: 10 })).toEqual([]);
    });

    it("listLogs is empty for another user's backtest, a missing one, or one without lines", async () => {
      const { store, userId, otherUserId, backtest } = context();
      const theirs = await withLogs(numberedLogLines(5), otherUserId);
      expect(await store.backtests.listLogs(otherUserId, theirs, { limit: 10 })).toHaveLength(5);
      expect(await store.backtests.listLogs(userId, theirs, { limit: 10 })).toEqual([]);
      expect(await store.backtests.listLogs(userId, theirs, { since: at(0), after: { timestamp: at(0), seq: 0 }, limit: 10 })).toEqual([]);
      expect(await store.backtests.listLogs(userId, uid('bt'), { limit: 10 })).toEqual([]);
      const bare = backtest(userId);
      await store.backtests.insert(bare);
      expect(await store.backtests.listLogs(userId, bare.id, { limit: 10 })).toEqual([]);
    });

    it("keeps each backtest's lines apart", async () => {
      const { store, userId } = context();
      const a = numberedLogLines(4, 'a');
      const b = numberedLogLines(6, 'b');
      const [idA, idB] = [await withLogs(a), await withLogs(b)];
      expect(await store.backtests.listLogs(userId, idA, { limit: 10 })).toEqual(stored(a));
      expect(await store.backtests.listLogs(userId, idB, { limit: 10 })).toEqual(stored(b));
    });

    it('saveLogs for a backtest that does not exist throws and stores nothing', async () => {
      const { store } = context();
      await expect(store.backtests.saveLogs(uid('bt'), numberedLogLines(2))).rejects.toThrow();
    });

    it('commits with the transaction that ends the run, and a rolled-back one leaves the earlier lines', async () => {
      const { store, userId, backtest } = context();
      const record = { ...backtest(userId), status: 'running' as const };
      await store.backtests.insert(record);
      const lines = numberedLogLines(1_100, 'kept');
      await store.transaction(async (tx) => {
        expect(await tx.backtests.transition(record.id, ['running'], { status: 'failed', finishedAt: at(9) })).not.toBeNull();
        await tx.backtests.saveLogs(record.id, lines);
      });
      expect(await store.backtests.listLogs(userId, record.id, { limit: 2_000 })).toEqual(stored(lines));

      const error = new Error('rollback');
      await expect(
        store.transaction(async (tx) => {
          await tx.backtests.saveLogs(record.id, numberedLogLines(1_050, 'doomed'));
          expect((await tx.backtests.listLogs(userId, record.id, { limit: 1 }))[0]?.message).toBe('doomed 0');
          throw error;
        }),
      ).rejects.toBe(error);
      expect(await store.backtests.listLogs(userId, record.id, { limit: 2_000 })).toEqual(stored(lines));
    });
  });
}
