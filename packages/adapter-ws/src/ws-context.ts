import type { Authenticator, ChannelService, Logger } from '@stratbox/core';
import type { ChannelHub } from './channel-hub.js';
import type { Connection } from './connection.js';
import type { ResolvedWsOptions } from './ws-options.js';

/** Counters a running endpoint keeps (see `StratboxWsServer.stats`). */
export interface WsCounters {
  /** Intermediate progress events not sent to a socket that was reading too slowly. */
  droppedEvents: number;
  /** Sockets closed with 4509 (slow consumer). */
  slowConsumerCloses: number;
  /** Client messages answered RATE_LIMITED (message rate, subscriptions or sockets per user). */
  rateLimited: number;
}

/** What every connection of one endpoint shares: one object, so an idle socket costs little. */
export interface WsContext {
  readonly options: ResolvedWsOptions;
  readonly authenticate: Authenticator;
  readonly channels: ChannelService;
  readonly logger: Logger;
  readonly hub: ChannelHub;
  readonly connections: Set<Connection>;
  /** Authenticated open sockets per user id. */
  readonly userSockets: Map<string, number>;
  readonly counters: WsCounters;
}
