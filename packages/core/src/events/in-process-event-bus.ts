import { EventEmitter } from 'eventemitter3';
import type { Channel, ChannelData } from '@stratbox/contract';
import { StratboxError } from '../errors/stratbox-error.js';
import type { ChannelHandler, EventBus, Unsubscribe } from '../ports/event-bus.js';
import { deliverEvent } from './deliver-event.js';

export interface InProcessEventBusOptions {
  /** Called with whatever a handler throws (or rejects with). Default: ignored. Must not throw. */
  onHandlerError?: (error: unknown, channel: string) => void;
}

/**
 * The default EventBus: in this process, on eventemitter3. Handlers run synchronously inside
 * `publish`, so keep them short (the WebSocket adapter only writes to sockets). An event
 * published by a handler is queued and delivered after the current one has reached every
 * handler, which keeps every channel in publish order for every subscriber.
 */
export function createInProcessEventBus(options: InProcessEventBusOptions = {}): EventBus {
  const emitter = new EventEmitter<Record<string, (data: unknown) => void>>();
  const report = (error: unknown, channel: string) => {
    try {
      options.onHandlerError?.(error, channel);
    } catch {
      // the error hook must not break delivery
    }
  };
  const queue: Array<[string, unknown]> = [];
  let delivering = false;
  let closed = false;

  function deliver(channel: string, data: unknown): void {
    emitter.emit(channel, data);
  }

  return {
    publish<C extends Channel>(channel: C, data: ChannelData<C>): void {
      if (closed) return;
      if (delivering) {
        queue.push([channel, data]);
        return;
      }
      delivering = true;
      try {
        deliver(channel, data);
        for (let next = queue.shift(); next; next = queue.shift()) deliver(next[0], next[1]);
      } finally {
        queue.length = 0;
        delivering = false;
      }
    },

    async subscribe<C extends Channel>(channel: C, handler: ChannelHandler<C>): Promise<Unsubscribe> {
      if (closed) throw new StratboxError('UNAVAILABLE', 'The event bus is closed');
      let active = true;
      const listener = (data: unknown) => {
        if (active) deliverEvent(handler, data, channel, report);
      };
      emitter.on(channel, listener);
      return () => {
        if (!active) return;
        active = false;
        emitter.off(channel, listener);
      };
    },

    async close(): Promise<void> {
      closed = true;
      queue.length = 0;
      emitter.removeAllListeners();
    },
  };
}
