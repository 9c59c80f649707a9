import type { Redis } from 'ioredis';
import { StratboxError, deliverEvent, type Channel, type ChannelData, type ChannelHandler, type EventBus, type Unsubscribe } from '@stratbox/core';
import { closeRedis, openRedis, type RedisConnection } from './connection.js';

export interface RedisEventBusConfig {
  /** Redis: a `redis://` URL or ioredis options. The bus opens (and closes) two clients of its own. */
  connection: RedisConnection;
  /** Prefix of every Redis channel this bus uses (default `stratbox`). Nodes that share events share it. */
  prefix?: string;
  /** Called with whatever a handler throws (or rejects with), and with Redis errors. Must not throw. */
  onHandlerError?: (error: unknown, channel: string) => void;
}

type Listener = (data: unknown) => void;

/**
 * The EventBus port on Redis pub/sub, for several processes: an event published on any node
 * reaches the subscribers of its channel on every node that shares the Redis and the prefix.
 *
 * - Order per channel from one publisher: all publishes of one bus go over one connection, and
 *   Redis relays a connection's messages in order; each node receives on one connection too.
 * - At most once: Redis pub/sub stores nothing; an event published while a node is
 *   disconnected is not replayed to it (late subscribers read the state from the store).
 * - `subscribe` resolves once Redis confirmed the subscription, so every event published
 *   afterwards, from any node, reaches the handler.
 * - `publish` never throws: serialization and connection errors go to `onHandlerError`.
 */
export function createRedisEventBus(config: RedisEventBusConfig): EventBus {
  const prefix = `${config.prefix ?? 'stratbox'}:events:`;
  const report = (error: unknown, channel: string) => {
    try {
      config.onHandlerError?.(error, channel);
    } catch {
      // the error hook must not break delivery
    }
  };
  let publisher: Redis | undefined;
  let subscriber: Redis | undefined;
  const listeners = new Map<string, Set<Listener>>();
  /** Per channel, the SUBSCRIBE/UNSUBSCRIBE commands in the order they were decided. */
  const pending = new Map<string, Promise<void>>();
  let closed = false;

  function pub(): Redis {
    if (!publisher) {
      publisher = openRedis(config.connection, 'stratbox-events-pub');
      publisher.on('error', (error) => report(error, '*'));
    }
    return publisher;
  }

  function sub(): Redis {
    if (!subscriber) {
      subscriber = openRedis(config.connection, 'stratbox-events-sub');
      subscriber.on('error', (error) => report(error, '*'));
      subscriber.on('message', (redisChannel: string, message: string) => {
        if (closed || !redisChannel.startsWith(prefix)) return;
        const set = listeners.get(redisChannel.slice(prefix.length));
        if (!set || set.size === 0) return;
        let data: unknown;
        try {
          data = JSON.parse(message);
        } catch (error) {
          report(error, redisChannel.slice(prefix.length));
          return;
        }
        for (const listener of [...set]) listener(data);
      });
    }
    return subscriber;
  }

  /** Runs a Redis (un)subscribe after the previous ones of the same channel. */
  function chain(channel: string, work: () => Promise<unknown>): Promise<void> {
    const next = (pending.get(channel) ?? Promise.resolve()).then(work).then(() => undefined);
    const settled = next.catch(() => undefined);
    pending.set(channel, settled);
    void settled.then(() => {
      if (pending.get(channel) === settled) pending.delete(channel);
    });
    return next;
  }

  return {
    publish<C extends Channel>(channel: C, data: ChannelData<C>): void {
      if (closed) return;
      try {
        pub()
          .publish(prefix + channel, JSON.stringify(data))
          .catch((error: unknown) => report(error, channel));
      } catch (error) {
        report(error, channel);
      }
    },

    async subscribe<C extends Channel>(channel: C, handler: ChannelHandler<C>): Promise<Unsubscribe> {
      if (closed) throw new StratboxError('UNAVAILABLE', 'The event bus is closed');
      let active = true;
      let ready = false; // events that arrive before `subscribe` resolves were published before it
      const listener: Listener = (data) => {
        if (ready && active && !closed) deliverEvent(handler, data, channel, report);
      };
      let set = listeners.get(channel);
      const first = !set || set.size === 0;
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(listener);
      try {
        // a second subscriber waits for the first one's SUBSCRIBE to be confirmed, then for a
        // PING on the same connection: whatever Redis sent before is read by then
        await chain(channel, () => (first ? sub().subscribe(prefix + channel) : sub().ping()));
      } catch (error) {
        set.delete(listener);
        throw new StratboxError('UNAVAILABLE', `Could not subscribe to ${channel}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (closed) throw new StratboxError('UNAVAILABLE', 'The event bus is closed');
      ready = true;
      return () => {
        if (!active) return;
        active = false;
        const current = listeners.get(channel);
        if (!current) return;
        current.delete(listener);
        if (current.size > 0) return;
        listeners.delete(channel);
        void chain(channel, async () => {
          // subscribed again meanwhile: keep the Redis subscription
          if (closed || (listeners.get(channel)?.size ?? 0) > 0) return;
          await subscriber?.unsubscribe(prefix + channel);
        }).catch((error: unknown) => report(error, channel));
      };
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      listeners.clear();
      await Promise.all([publisher, subscriber].filter((c): c is Redis => !!c).map(closeRedis));
    },
  };
}
