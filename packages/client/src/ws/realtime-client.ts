import {
  ChannelName,
  ERROR_STATUS,
  WS_CLOSE_CODES,
  WsServerMessage,
  isFinalProgress,
  parseChannel,
  type Channel,
  type ChannelData,
  type ChannelKind,
  type ErrorCode,
} from '@stratbox/contract';
import { StratboxClientError } from '../client-error.js';
import { reconnectDelay, type ReconnectOptions } from './backoff.js';
import { WS_OPEN, type WebSocketConstructor, type WebSocketLike } from './websocket-like.js';

/** Ends a subscription; calling it twice is harmless. */
export type Unsubscribe = () => void;

/** Where the real-time connection is. */
export type RealtimeState = 'idle' | 'connecting' | 'authenticating' | 'open' | 'reconnecting' | 'closed';

export interface SubscribeOptions {
  /** The server refused this subscription (NOT_FOUND, VALIDATION_FAILED, RATE_LIMITED...) or the credentials were refused; it has ended. */
  onError?: (error: StratboxClientError) => void;
  /** The server acknowledged the subscription (again after every reconnect). */
  onSubscribed?: () => void;
}

export interface RealtimeOptions {
  /** The WebSocket endpoint, e.g. `wss://stratbox.example.com/ws`. */
  url: string;
  /** Sent as the first message `{ type: 'auth', token }`. Without it the server must authenticate the upgrade itself (e.g. by a cookie). */
  token?: string;
  /** The WebSocket class; default: the global `WebSocket` (browsers, Node 22+). In Node 20 pass the `ws` package's class. */
  WebSocket?: WebSocketConstructor;
  /** Reconnect with backoff and jitter after the connection drops (default on); `false` ends every subscription instead. */
  reconnect?: ReconnectOptions | false;
  /** Keep an unused socket this long after the last unsubscribe (default 1000 ms), so a quick re-subscribe reuses it. */
  lingerMs?: number;
  /** Errors that belong to no subscription (rate limits, refused credentials). */
  onError?: (error: StratboxClientError) => void;
}

/** Real-time channels over one WebSocket, opened on first use, reconnected and re-subscribed by itself. */
export interface RealtimeClient {
  /**
   * Calls `handler` with every event of `channel` (typed from the contract) until the returned
   * function is called. Several subscriptions to one channel share one server subscription.
   * A backtest's final event is delivered once; a later subscriber to a finished channel gets it
   * at once.
   */
  subscribe<C extends Channel>(channel: C, handler: (data: ChannelData<C>, channel: C) => void, options?: SubscribeOptions): Unsubscribe;
  readonly state: RealtimeState;
  /** Calls `listener` at each state change; returns a function that stops it. */
  onStateChange(listener: (state: RealtimeState) => void): Unsubscribe;
  /** Closes the socket and ends every subscription, for good. */
  close(): void;
}

interface Listener {
  onEvent: (data: never, channel: never) => void;
  options: SubscribeOptions;
}

interface ChannelEntry {
  channel: Channel;
  kind: ChannelKind;
  listeners: Set<Listener>;
  /** Ref of this channel's subscribe on the current socket, or null when not sent on it. */
  ref: string | null;
  subscribed: boolean;
  /** The final event of a finished backtest or optimization: nothing more will come, so it is not re-subscribed. */
  final: unknown;
}

function rethrowLater(error: unknown): void {
  setTimeout(() => {
    throw error;
  }, 0);
}

/** A `RealtimeClient`. Touches the network only once something is subscribed. */
export function createRealtimeClient(options: RealtimeOptions): RealtimeClient {
  const lingerMs = options.lingerMs ?? 1_000;
  const entries = new Map<string, ChannelEntry>();
  const refs = new Map<string, string>();
  const stateListeners = new Set<(state: RealtimeState) => void>();
  let state: RealtimeState = 'idle';
  let socket: WebSocketLike | null = null;
  let attempt = 0;
  let nextRef = 0;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let lingerTimer: ReturnType<typeof setTimeout> | null = null;
  let closedForGood = false;

  function setState(next: RealtimeState): void {
    if (state === next) return;
    state = next;
    for (const listener of [...stateListeners]) {
      try {
        listener(next);
      } catch (error) {
        rethrowLater(error);
      }
    }
  }

  const wantsSocket = () => [...entries.values()].some((entry) => entry.final === undefined);

  function send(message: object): void {
    if (socket && socket.readyState === WS_OPEN) socket.send(JSON.stringify(message));
  }

  function sendSubscribe(entry: ChannelEntry): void {
    const ref = `s${++nextRef}`;
    entry.ref = ref;
    entry.subscribed = false;
    refs.set(ref, entry.channel);
    send({ type: 'subscribe', channel: entry.channel, id: ref });
  }

  function reportGeneral(error: StratboxClientError): void {
    if (options.onError) options.onError(error);
  }

  /** Ends a channel's subscription with an error for each of its listeners. */
  function fail(entry: ChannelEntry, error: StratboxClientError): void {
    entries.delete(entry.channel);
    let handled = false;
    for (const listener of entry.listeners) {
      if (!listener.options.onError) continue;
      handled = true;
      try {
        listener.options.onError(error);
      } catch (thrown) {
        rethrowLater(thrown);
      }
    }
    if (!handled) reportGeneral(error);
  }

  function dispatch(entry: ChannelEntry, data: unknown): void {
    for (const listener of [...entry.listeners]) {
      try {
        (listener.onEvent as (data: unknown, channel: Channel) => void)(data, entry.channel);
      } catch (error) {
        rethrowLater(error);
      }
    }
  }

  function errorFrom(code: ErrorCode, message: string, details?: unknown): StratboxClientError {
    return new StratboxClientError(code, message, ERROR_STATUS[code], details);
  }

  function onServerMessage(text: unknown): void {
    if (typeof text !== 'string') return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return;
    }
    const parsed = WsServerMessage.safeParse(raw);
    if (!parsed.success) {
      reportGeneral(errorFrom('INTERNAL', 'A server message does not match the contract', parsed.error.issues));
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'authenticated':
        attempt = 0;
        setState('open');
        for (const entry of entries.values()) if (entry.final === undefined) sendSubscribe(entry);
        return;
      case 'subscribed': {
        refs.delete(message.id);
        const entry = entries.get(message.channel);
        if (!entry || entry.ref !== message.id) return;
        entry.subscribed = true;
        for (const listener of [...entry.listeners]) listener.options.onSubscribed?.();
        return;
      }
      case 'unsubscribed':
        refs.delete(message.id);
        return;
      case 'event': {
        const entry = entries.get(message.channel);
        if (!entry || entry.final !== undefined) return;
        if (entry.kind !== 'deployment' && isFinalProgress(message.data as { status: string })) {
          entry.final = message.data;
          scheduleLinger();
        }
        dispatch(entry, message.data);
        return;
      }
      case 'error': {
        const error = errorFrom(message.error.code, message.error.message, message.error.details);
        const channel = message.id === null ? undefined : refs.get(message.id);
        if (message.id !== null) refs.delete(message.id);
        const entry = channel === undefined ? undefined : entries.get(channel);
        if (entry && entry.ref === message.id) {
          fail(entry, error);
          scheduleLinger();
        } else if (message.error.code !== 'UNAUTHENTICATED') {
          // UNAUTHENTICATED comes with close 4401, reported there to each subscription
          reportGeneral(error);
        }
        return;
      }
    }
  }

  function onSocketClosed(code: number | undefined, reason: string | undefined): void {
    socket = null;
    refs.clear();
    for (const entry of entries.values()) {
      entry.ref = null;
      entry.subscribed = false;
    }
    if (closedForGood) return setState('closed');
    if (code === WS_CLOSE_CODES.UNAUTHENTICATED) {
      const error = errorFrom('UNAUTHENTICATED', reason || 'The server refused the credentials');
      for (const entry of [...entries.values()]) fail(entry, error);
      return setState('idle');
    }
    if (!wantsSocket()) return setState('idle');
    if (options.reconnect === false) {
      const error = errorFrom('UNAVAILABLE', `The real-time connection closed (${code ?? 'no code'}${reason ? `: ${reason}` : ''})`);
      for (const entry of [...entries.values()]) if (entry.final === undefined) fail(entry, error);
      return setState('idle');
    }
    setState('reconnecting');
    const delay = reconnectDelay(attempt++, options.reconnect);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (!closedForGood && !socket && wantsSocket()) connect();
    }, delay);
  }

  function connect(): void {
    const Implementation = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Implementation) {
      throw new StratboxClientError('NOT_IMPLEMENTED', 'No WebSocket here: pass the `ws` package class as the WebSocket option (Node 20)', 0);
    }
    setState('connecting');
    let ws: WebSocketLike;
    try {
      ws = new Implementation(options.url);
    } catch (error) {
      // a malformed URL: retrying would not help
      const failure = new StratboxClientError(
        'VALIDATION_FAILED',
        `Cannot open a WebSocket to ${options.url}: ${error instanceof Error ? error.message : String(error)}`,
        0,
      );
      for (const entry of [...entries.values()]) fail(entry, failure);
      setState('idle');
      return;
    }
    socket = ws;
    ws.onopen = () => {
      if (socket !== ws) return;
      setState('authenticating');
      if (options.token) ws.send(JSON.stringify({ type: 'auth', token: options.token }));
    };
    ws.onmessage = ((event: { data?: unknown }) => {
      if (socket === ws) onServerMessage(event.data);
    }) as WebSocketLike['onmessage'];
    ws.onclose = ((event: { code?: number; reason?: string }) => {
      if (socket === ws) onSocketClosed(event.code, event.reason);
    }) as WebSocketLike['onclose'];
    ws.onerror = () => {
      // a close event follows every error
    };
  }

  function scheduleLinger(): void {
    if (lingerTimer || wantsSocket() || closedForGood) return;
    if (retryTimer) {
      clearTimeout(retryTimer);
      retryTimer = null;
      setState('idle');
    }
    if (!socket) return;
    lingerTimer = setTimeout(() => {
      lingerTimer = null;
      if (wantsSocket() || !socket) return;
      const closing = socket;
      socket = null;
      refs.clear();
      closing.close(WS_CLOSE_CODES.NORMAL, 'No subscriptions');
      setState('idle');
    }, lingerMs);
  }

  return {
    subscribe<C extends Channel>(channel: C, handler: (data: ChannelData<C>, channel: C) => void, subscribeOptions: SubscribeOptions = {}): Unsubscribe {
      if (closedForGood) throw new StratboxClientError('UNAVAILABLE', 'This real-time client was closed', 0);
      const parsed = parseChannel(channel);
      if (!parsed || !ChannelName.safeParse(channel).success) {
        throw new StratboxClientError(
          'VALIDATION_FAILED',
          `Not a channel: ${String(channel).slice(0, 80)}; expected backtest:<bt_id>:progress, deployment:<dep_id>:orders, optimization:<opt_id>:progress or user:<your user id>:events`,
          0,
        );
      }
      let entry = entries.get(channel);
      const isNew = !entry;
      if (!entry) {
        entry = { channel, kind: parsed.kind, listeners: new Set(), ref: null, subscribed: false, final: undefined };
        entries.set(channel, entry);
      }
      const listener: Listener = { onEvent: handler as Listener['onEvent'], options: subscribeOptions };
      entry.listeners.add(listener);
      if (lingerTimer) {
        clearTimeout(lingerTimer);
        lingerTimer = null;
      }
      const current = entry;
      if (current.final !== undefined) {
        // finished: hand the final event to the newcomer, as the server would
        queueMicrotask(() => {
          if (current.listeners.has(listener)) (listener.onEvent as (data: unknown, channel: Channel) => void)(current.final, channel);
        });
      } else if (current.subscribed) {
        queueMicrotask(() => subscribeOptions.onSubscribed?.());
      } else if (isNew && state === 'open') {
        sendSubscribe(current);
      }
      if (!socket && !retryTimer && wantsSocket()) {
        try {
          connect();
        } catch (error) {
          current.listeners.delete(listener);
          if (current.listeners.size === 0) entries.delete(channel);
          throw error;
        }
      }
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        current.listeners.delete(listener);
        if (current.listeners.size > 0 || entries.get(channel) !== current) return;
        entries.delete(channel);
        if (current.ref !== null && state === 'open') {
          const ref = `u${++nextRef}`;
          refs.set(ref, channel);
          send({ type: 'unsubscribe', channel, id: ref });
        }
        scheduleLinger();
      };
    },
    get state() {
      return state;
    },
    onStateChange(listener) {
      stateListeners.add(listener);
      return () => {
        stateListeners.delete(listener);
      };
    },
    close() {
      if (closedForGood) return;
      closedForGood = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (lingerTimer) clearTimeout(lingerTimer);
      retryTimer = lingerTimer = null;
      entries.clear();
      refs.clear();
      const closing = socket;
      socket = null;
      closing?.close(WS_CLOSE_CODES.NORMAL, 'Client closed');
      setState('closed');
    },
  };
}
