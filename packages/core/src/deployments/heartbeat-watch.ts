import type { DeploymentRecord, Store } from '../ports/store.js';
import { recordHeartbeatMissed } from './deployment-events.js';

/*
 * The dead-man alert of a running deployment: when it has processed no closed candle for
 * `periods` (3) of its timeframe, measured from the close of the last candle it processed (or
 * from the start of this run when it has processed none), its owner gets
 * `deployment.heartbeat.missed`. Once per silence, not once per poll: the event's dedupe key is
 * the deployment and the point the silence is measured from, so a later poll of the same silence
 * (in this process or another that took the deployment over) writes nothing; a candle processed
 * ends the silence, and the next one is new.
 */

/** Periods without a processed candle before the alert. */
export const HEARTBEAT_MISSED_PERIODS = 3;

export interface HeartbeatWatch {
  /** The strategy processed the closed candle opening at `candleTime` (ms). */
  processed(candleTime: number): void;
  /** Checks the silence at `nowMs`; writes the alert when it is due and not yet written for this silence. */
  check(nowMs: number): Promise<void>;
}

export function createHeartbeatWatch(input: {
  store: Pick<Store, 'notificationEvents'>;
  deployment: Pick<DeploymentRecord, 'id' | 'userId'>;
  timeframe: string;
  /** The timeframe's length in ms. */
  stepMs: number;
  /** When this run started (ms): the silence is measured from here until a candle is processed. */
  startedAtMs: number;
  periods?: number;
}): HeartbeatWatch {
  const periods = input.periods ?? HEARTBEAT_MISSED_PERIODS;
  let lastCandle: number | null = null;
  /** The `since` of the silence already reported. */
  let reported: number | null = null;

  return {
    processed(candleTime) {
      if (lastCandle === null || candleTime > lastCandle) lastCandle = candleTime;
    },

    async check(nowMs) {
      const since = lastCandle === null ? input.startedAtMs : lastCandle + input.stepMs;
      if (reported === since) return;
      const missedPeriods = Math.floor((nowMs - since) / input.stepMs);
      if (missedPeriods < periods) return;
      await recordHeartbeatMissed(input.store, input.deployment, {
        timeframe: input.timeframe,
        lastCandleAt: lastCandle === null ? null : new Date(lastCandle).toISOString(),
        since: new Date(since).toISOString(),
        missedPeriods,
        at: new Date(nowMs).toISOString(),
      });
      reported = since;
    },
  };
}
