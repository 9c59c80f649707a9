import { nextUpdatedAt } from './record-views.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { MarketData, TimeframeName } from '../../ports/market-data.js';
import type { Store } from '../../ports/store.js';
import type { VerificationRecordRow } from '../../ports/store-verification.js';
import type { StrategyRunner } from '../../ports/strategy-runner.js';
import { advanceForwardRecord, forwardNeed, loadForwardMarket, type ForwardAdvance } from './forward-record.js';
import { runPlatformBacktest, type VerificationDeps } from './platform-backtest.js';
import { loadRecordStrategy, recordError, type RecordStrategy } from './record-strategy.js';
import type { VerificationSettings } from './verification-settings.js';

export interface VerificationLoopDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  strategyRunner: StrategyRunner;
  marketData: MarketData;
  settings: VerificationSettings;
}

/** What one round did. */
export interface VerificationRound {
  /** Platform backtests run (ready or failed) and those another node wrote first. */
  backtests: { ready: number; failed: number; lost: number };
  /** Forward records: advanced, already current, lost to another node, skipped (run failed, not listed...). */
  forward: { advanced: number; current: number; lost: number; skipped: number; delisted: number };
  /** Candle loads: one per symbol set, timeframe and funding setting with records to advance. */
  marketLoads: number;
  /** Sandbox CPU time of the round (the platform's; logged, never charged to a seller). */
  computeMs: number;
}

export interface VerificationLoop {
  /** Runs a round now, then one every `settings.intervalMs` (rounds never overlap). */
  start(): void;
  /** One round: pending platform backtests, then the forward records of listed listings. Waits for a round already running. */
  tick(): Promise<VerificationRound>;
  /** Runs a round soon (after the current one) instead of at the next interval: a listing was just created. Does nothing before `start()`. */
  wake(): void;
  /** Stops the timer, aborts the runs in flight and waits for the round to end. Safe to call twice. */
  close(): Promise<void>;
}

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * The platform's verification loop (docs/verified-listings.md). Each round: runs every pending
 * record's platform backtest, then advances every current ready record whose listing is listed
 * to the last closed candle, grouped by symbols, timeframe and funding so that a group loads its
 * candles once per round, `settings.concurrency` sandbox runs at a time under the platform's
 * tenant. A delisted listing's record stops advancing and stays as it is. Several nodes may run
 * it on one Store: every write is a compare-and-set, so a record is advanced by one of them.
 */
export function createVerificationLoop(deps: VerificationLoopDeps): VerificationLoop {
  const { store, clock, logger, settings } = deps;
  const abort = new AbortController();
  const engine: VerificationDeps = { ...deps, signal: abort.signal };
  /** Sources and declarations by (strategy, version, hash): a version never changes, so they keep. */
  const strategies = new Map<string, Promise<RecordStrategy>>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<VerificationRound> | null = null;
  let closed = false;

  const strategyOf = (record: VerificationRecordRow): Promise<RecordStrategy> => {
    const key = `${record.strategyId}:${record.identity.strategyVersion}:${record.identity.sourceSha256}`;
    let found = strategies.get(key);
    if (!found) {
      found = loadRecordStrategy(store, deps.strategyRunner, record, settings.tenant);
      found.catch(() => strategies.delete(key));
      strategies.set(key, found);
    }
    return found;
  };

  async function* current(status: VerificationRecordRow['status']): AsyncGenerator<VerificationRecordRow[]> {
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await store.verificationRecords.listCurrent([status], settings.pageSize, after);
      if (page.length > 0) yield page;
      if (page.length < settings.pageSize) return;
      const last = page[page.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }

  /**
   * Takes a record for this round with a compare-and-set on its `updatedAt`: of several nodes
   * running the loop on one Store, one runs each record's sandbox work and the others skip it
   * (a node that dies after taking one leaves it for the next round of any node).
   */
  const claim = (record: VerificationRecordRow) =>
    store.verificationRecords.update(record.id, record.updatedAt, { updatedAt: nextUpdatedAt(record.updatedAt, clock.now()) });

  async function round(): Promise<VerificationRound> {
    const report: VerificationRound = {
      backtests: { ready: 0, failed: 0, lost: 0 },
      forward: { advanced: 0, current: 0, lost: 0, skipped: 0, delisted: 0 },
      marketLoads: 0,
      computeMs: 0,
    };
    for await (const page of current('pending')) {
      await eachLimited(page, settings.concurrency, async (record) => {
        if (abort.signal.aborted) return;
        const mine = await claim(record);
        const after = mine && (await runPlatformBacktest(engine, mine));
        if (!after) report.backtests.lost++;
        else if (after.status === 'ready') report.backtests.ready++;
        else report.backtests.failed++;
      });
    }

    // Forward records with a new closed candle, of listed listings, grouped by what they load.
    const nowMs = clock.now().getTime();
    const listed = new Map<string, boolean>();
    const groups = new Map<string, VerificationRecordRow[]>();
    for await (const page of current('ready')) {
      for (const record of page) {
        if (!forwardNeed(record, nowMs)) {
          report.forward.current++;
          continue;
        }
        let isListed = listed.get(record.listingId);
        if (isListed === undefined) {
          isListed = (await store.listings.findById(record.listingId))?.status === 'listed';
          listed.set(record.listingId, isListed);
        }
        if (!isListed) {
          report.forward.delisted++;
          continue;
        }
        const { symbols, timeframe, funding, marketType } = record.identity;
        const key = `${symbols.join(',')}|${timeframe}|${funding && marketType === 'LINEAR'}`;
        const group = groups.get(key);
        if (group) group.push(record);
        else groups.set(key, [record]);
      }
    }

    const count = (result: ForwardAdvance) => {
      report.forward[result.status]++;
      if ('computeMs' in result && result.computeMs) report.computeMs += result.computeMs;
    };
    for (const records of groups.values()) {
      if (abort.signal.aborted) break;
      const prepared: Array<{ record: VerificationRecordRow; strategy: RecordStrategy }> = [];
      for (const record of records) {
        try {
          prepared.push({ record, strategy: await strategyOf(record) });
        } catch (error) {
          logger.warn('Verification forward record cannot run', { recordId: record.id, error: recordError(error) });
          report.forward.skipped++;
        }
      }
      if (prepared.length === 0) continue;
      const { symbols, timeframe, funding, marketType } = prepared[0]!.record.identity;
      const needs = prepared.map((p) => forwardNeed(p.record, nowMs)!);
      let market: Awaited<ReturnType<typeof loadForwardMarket>>;
      try {
        market = await loadForwardMarket(deps.marketData, {
          symbols,
          timeframe: timeframe as TimeframeName,
          fromDay: needs.map((n) => n.fromDay).sort()[0]!,
          toDay: needs
            .map((n) => n.toDay)
            .sort()
            .at(-1)!,
          warmup: Math.max(0, ...prepared.map((p) => p.strategy.declaration.warmup ?? 0)),
          funding: funding && marketType === 'LINEAR',
        });
        report.marketLoads++;
      } catch (error) {
        logger.warn('Verification candles could not be loaded; tried again next round', { symbols, timeframe, error: recordError(error) });
        report.forward.skipped += prepared.length;
        continue;
      }
      await eachLimited(prepared, settings.concurrency, async ({ record, strategy }) => {
        if (abort.signal.aborted) return;
        const mine = await claim(record);
        if (!mine) report.forward.lost++;
        else count(await advanceForwardRecord(engine, mine, { market, strategy }));
      });
    }
    return report;
  }

  function tick(): Promise<VerificationRound> {
    if (running) return running;
    running = round().finally(() => {
      running = null;
    });
    return running;
  }

  let started = false;
  let again = false;
  const logFailure = (error: unknown) => logger.error('Verification round failed', { error: error instanceof Error ? error.message : String(error) });

  /** A round now; then another at once if one was asked for meanwhile, else the next in `intervalMs`. */
  function runNow() {
    void tick()
      .catch(logFailure)
      .finally(() => {
        if (closed) return;
        if (again) {
          again = false;
          runNow();
        } else schedule();
      });
  }

  function schedule() {
    if (closed) return;
    timer = setTimeout(() => {
      timer = null;
      runNow();
    }, settings.intervalMs);
    timer.unref?.();
  }

  return {
    start() {
      if (closed || started) return;
      started = true;
      runNow();
    },
    wake() {
      if (closed || !started) return;
      if (running) {
        again = true;
        return;
      }
      if (timer) clearTimeout(timer);
      timer = null;
      runNow();
    },
    tick,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      abort.abort();
      await running?.catch(() => undefined);
    },
  };
}
