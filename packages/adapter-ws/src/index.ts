/**
 * `@stratbox/adapter-ws`: real-time channels (`backtest:<id>:progress`,
 * `deployment:<id>:orders`) over WebSocket. Not delivered yet: the channels land with the
 * real-time issue. Until then this entry point states so instead of failing silently.
 */
import { StratboxError } from '@stratbox/core';

export function attachStratboxWs(): never {
  throw new StratboxError('NOT_IMPLEMENTED', 'WebSocket channels are not available in this version of Stratbox');
}
