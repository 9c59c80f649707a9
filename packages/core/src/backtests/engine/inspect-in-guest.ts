import { SandboxError } from '../../sandbox/sandbox-error.js';
import { openBacktestSession, type GuestLimits } from './backtest-session.js';
import type { StrategyInspection } from './backtest-worker-protocol.js';
import { loadStrategy } from './run-in-guest.js';

/**
 * Evaluates a strategy module in a fresh QuickJS runtime (never in the host's V8) and reads its
 * exports and `meta`. Rejects with a `SandboxError`: INVALID_STRATEGY for a syntax error, a
 * missing `onCandle` or a bad `meta`; STRATEGY_ERROR when the module throws while loading;
 * TIMEOUT or MEMORY_LIMIT when loading exceeds the limits.
 */
export async function inspectStrategyInGuest(source: string, limits: GuestLimits, isCancelled: () => boolean): Promise<StrategyInspection> {
  const session = await openBacktestSession({ limits, seed: 1, startTime: 0, isCancelled });
  try {
    const { ns, meta } = await loadStrategy(session, source);
    const h = session.call('readExports', ns);
    const pairs = JSON.parse(session.vm.getString(h)) as string[];
    h.dispose();
    ns.dispose();
    const exports: Record<string, string> = {};
    for (const pair of pairs) {
      const at = pair.lastIndexOf(':');
      exports[pair.slice(0, at)] = pair.slice(at + 1);
    }
    if (exports.onCandle !== 'function') {
      throw new SandboxError('INVALID_STRATEGY', 'The strategy must export a function onCandle(ctx, candle)', {
        details: [{ path: 'source', message: `onCandle is ${exports.onCandle ?? 'not exported'}` }],
      });
    }
    if (exports.onOrder !== undefined && exports.onOrder !== 'function') {
      throw new SandboxError('INVALID_STRATEGY', 'onOrder, when exported, must be a function', {
        details: [{ path: 'source', message: `onOrder is ${exports.onOrder}` }],
      });
    }
    return { meta, exports };
  } finally {
    session.dispose();
  }
}
