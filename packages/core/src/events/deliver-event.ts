import type { Channel } from '@stratbox/contract';
import type { ChannelHandler } from '../ports/event-bus.js';

/**
 * Calls a subscriber's handler with one event, so that nothing it does reaches the publisher:
 * a throw, or the rejection of the promise it returns, goes to `report` instead. For EventBus
 * implementations.
 */
export function deliverEvent<C extends Channel>(handler: ChannelHandler<C>, data: unknown, channel: C, report: (error: unknown, channel: C) => void): void {
  try {
    const result = (handler as (data: unknown, channel: C) => unknown)(data, channel);
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
      (result as PromiseLike<unknown>).then(undefined, (error: unknown) => report(error, channel));
    }
  } catch (error) {
    report(error, channel);
  }
}
