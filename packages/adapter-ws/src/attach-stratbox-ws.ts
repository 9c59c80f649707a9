import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { WS_CLOSE_CODES, type Stratbox } from '@stratbox/core';
import { ChannelHub } from './channel-hub.js';
import { Connection } from './connection.js';
import { pathnameOf, rejectHandshake } from './upgrade.js';
import type { WsContext, WsCounters } from './ws-context.js';
import { resolveWsOptions, type StratboxWsOptions } from './ws-options.js';

/** Live numbers of one endpoint. */
export interface StratboxWsStats extends WsCounters {
  /** Open sockets, authenticated or not. */
  sockets: number;
  authenticatedSockets: number;
  /** Channels with at least one subscriber. */
  channels: number;
  /** Subscriptions over all sockets. */
  subscriptions: number;
  /** Bytes written to sockets and not yet sent, over all sockets. */
  bufferedBytes: number;
}

/** A running `/ws` endpoint. */
export interface StratboxWsServer {
  /** True when a request is for this endpoint's path. */
  shouldHandle(request: IncomingMessage): boolean;
  /**
   * Completes the WebSocket handshake of an upgrade request for this endpoint. Attached to a
   * server this is done for you; with `{ noServer: true }` call it from your own `upgrade`
   * listener (after checking `shouldHandle`).
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  stats(): StratboxWsStats;
  /**
   * Stops accepting sockets, closes every open one with 1001 (going away; clients reconnect),
   * ends the heartbeat and every bus subscription, and detaches from the server. Resolves once
   * every socket has closed (sockets that do not answer within `timeoutMs`, default 5000, are
   * dropped). Does not close the HTTP server.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** The part of a Stratbox instance the endpoint uses. */
export type StratboxForWs = Pick<Stratbox, 'events' | 'channels' | 'authenticate' | 'logger'>;

/**
 * Serves the Stratbox real-time channels (`backtest:<id>:progress`, `deployment:<id>:orders`)
 * over WebSocket at `/ws`, on the same HTTP server as the Express adapter (one port), or, with
 * `{ noServer: true }`, wherever the host routes upgrades to `handleUpgrade`.
 *
 * Authentication is the `Authorization` header of the upgrade, or a first message
 * `{ "type": "auth", "token": "..." }` (browsers cannot set headers). Events come from
 * `stratbox.events` and access decisions from `stratbox.channels`; the endpoint never calls a
 * service directly. Protocol, limits and close codes: README.md of this package.
 */
export function attachStratboxWs(
  target: HttpServer | HttpsServer | { noServer: true },
  stratbox: StratboxForWs,
  options: StratboxWsOptions = {},
): StratboxWsServer {
  const resolved = resolveWsOptions(options);
  const logger = options.logger ?? stratbox.logger;
  const authenticate = options.authenticate ?? stratbox.authenticate;
  const counters: WsCounters = { droppedEvents: 0, slowConsumerCloses: 0, rateLimited: 0 };
  const ctx: WsContext = {
    options: resolved,
    authenticate,
    channels: stratbox.channels,
    logger,
    hub: new ChannelHub(stratbox.events, logger, counters),
    connections: new Set(),
    userSockets: new Map(),
    counters,
  };
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: resolved.maxPayloadBytes,
  });
  let closing = false;

  const onEarlySocketError = () => {
    // the client went away during the handshake: nothing to clean up
  };

  function connect(request: IncomingMessage, socket: Duplex, head: Buffer, upgrade: { userId: string } | 'rejected' | null): void {
    socket.off('error', onEarlySocketError);
    if (socket.destroyed) return;
    if (closing) return rejectHandshake(socket, 503, 'UNAVAILABLE', 'The server is shutting down');
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new Connection(ctx, ws);
      ctx.connections.add(connection);
      ws.on('message', (data, isBinary) => connection.onMessage(data, isBinary));
      ws.on('pong', () => {
        connection.alive = true;
      });
      ws.on('close', () => connection.onClose());
      ws.on('error', (error) => logger.debug('WebSocket error', { error: error.message, userId: connection.userId }));
      connection.start(upgrade);
    });
  }

  function handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (closing) return rejectHandshake(socket, 503, 'UNAVAILABLE', 'The server is shutting down');
    if (resolved.verifyOrigin && !resolved.verifyOrigin(request.headers.origin)) {
      return rejectHandshake(socket, 403, 'FORBIDDEN', 'Origin not allowed');
    }
    socket.on('error', onEarlySocketError);
    const hasAuthorization = request.headers.authorization !== undefined;
    // Hosts may authenticate by other headers (a session cookie); without an Authorization header
    // a null answer just means "wait for the auth message".
    authenticate({ headers: request.headers }).then(
      (caller) => connect(request, socket, head, caller ? { userId: caller.userId } : hasAuthorization ? 'rejected' : null),
      (error: unknown) => {
        socket.off('error', onEarlySocketError);
        logger.error('Authenticator failed during a WebSocket upgrade', { error: error instanceof Error ? error.message : String(error) });
        rejectHandshake(socket, 500, 'INTERNAL', 'Internal error');
      },
    );
  }

  const shouldHandle = (request: IncomingMessage) => pathnameOf(request) === resolved.path;

  let detach = () => {};
  if (!('noServer' in target)) {
    const server = target;
    const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (shouldHandle(request)) return handleUpgrade(request, socket, head);
      // another listener may own this path; if there is none, say so instead of hanging
      if (server.listenerCount('upgrade') <= 1) rejectHandshake(socket, 404, 'NOT_FOUND', `No WebSocket endpoint at ${pathnameOf(request)}`);
    };
    server.on('upgrade', onUpgrade);
    detach = () => server.off('upgrade', onUpgrade);
  }

  const heartbeat =
    resolved.heartbeatIntervalMs > 0
      ? setInterval(() => {
          for (const connection of ctx.connections) connection.heartbeat();
        }, resolved.heartbeatIntervalMs)
      : null;
  heartbeat?.unref?.();

  return {
    shouldHandle,
    handleUpgrade,
    stats() {
      let authenticatedSockets = 0;
      let bufferedBytes = 0;
      for (const connection of ctx.connections) {
        if (connection.isAuthenticated) authenticatedSockets++;
        bufferedBytes += connection.ws.bufferedAmount;
      }
      return { sockets: ctx.connections.size, authenticatedSockets, ...ctx.hub.size(), bufferedBytes, ...counters };
    },
    async close({ timeoutMs = 5_000 } = {}) {
      if (closing) return;
      closing = true;
      detach();
      if (heartbeat) clearInterval(heartbeat);
      const open = [...ctx.connections];
      await Promise.all(
        open.map(
          (connection) =>
            new Promise<void>((resolve) => {
              if (connection.ws.readyState === connection.ws.CLOSED) return resolve();
              const timer = setTimeout(() => connection.ws.terminate(), timeoutMs);
              connection.ws.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              connection.close(WS_CLOSE_CODES.GOING_AWAY, 'Server shutting down');
            }),
        ),
      );
      ctx.hub.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
