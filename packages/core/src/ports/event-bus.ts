import type { Channel, ChannelData } from '@stratbox/contract';

/** Ends a subscription. Calling it more than once is harmless. */
export type Unsubscribe = () => void;

/** Receives the events of one channel. */
export type ChannelHandler<C extends Channel> = (data: ChannelData<C>, channel: C) => void;

/**
 * The EventBus port: real-time events by channel (`backtest:<id>:progress`,
 * `deployment:<id>:orders`), from the services that produce them (backtest runner, deployment
 * supervisor) to whoever delivers them (the WebSocket adapter). The default is in process, on
 * eventemitter3 (`createInProcessEventBus`); a package per distributed technology may implement
 * it for several processes.
 *
 * Guarantees every implementation gives:
 * - Typing: the data of a channel is `ChannelData<channel>`, the contract's payload for its kind.
 * - Ordering per channel: the events of one channel published from one process reach each
 *   subscription in the order they were published, also when a handler publishes in turn.
 * - At-most-once delivery: an event reaches each subscription at most once and only if the
 *   subscription was active when it was published. Nothing is stored or replayed: a late
 *   subscriber reads the current state from the store (see `ChannelService`).
 * - `publish` hands the event over and returns; it never waits for subscribers and never throws
 *   because of a subscriber's error: a handler that throws (or returns a rejected promise) is
 *   reported through the implementation's error hook and the other handlers still run.
 * - `subscribe` resolves once every event published afterwards reaches the handler.
 * - After `close()` nothing is delivered; `publish` is a no-op and `subscribe` rejects with
 *   `UNAVAILABLE`.
 */
export interface EventBus {
  /** Publishes one event on a channel. */
  publish<C extends Channel>(channel: C, data: ChannelData<C>): void;
  /** Calls `handler` for every event published on `channel` from now on, until unsubscribed. */
  subscribe<C extends Channel>(channel: C, handler: ChannelHandler<C>): Promise<Unsubscribe>;
  /** Ends every subscription and releases the bus. Safe to call twice. */
  close(): Promise<void>;
}
