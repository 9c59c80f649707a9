import { parseChannel, type BacktestProgressData, type Channel, type ChannelData, type ChannelKind, type OptimizationProgressData } from '@stratbox/contract';
import { StratboxError } from '../errors/stratbox-error.js';
import type { Store } from '../ports/store.js';

/**
 * Decides whether `userId` may subscribe to backtest `backtestId`: null when there is no such
 * backtest for this user (missing, or another user's: the same answer). For a finished backtest,
 * `final` is its last progress event, which a new subscriber receives at once.
 */
export type BacktestChannelResolver = (userId: string, backtestId: string) => Promise<{ final?: BacktestProgressData } | null>;

/** Decides whether `userId` may subscribe to deployment `deploymentId`: null when it is not theirs or missing. */
export type DeploymentChannelResolver = (userId: string, deploymentId: string) => Promise<object | null>;

/**
 * Decides whether `userId` may subscribe to optimization `optimizationId`: null when it is not
 * theirs or missing; for a finished one, `final` is its last progress event.
 */
export type OptimizationChannelResolver = (userId: string, optimizationId: string) => Promise<{ final?: OptimizationProgressData } | null>;

/** One resolver per channel kind. */
export interface ChannelResolvers {
  backtest: BacktestChannelResolver;
  deployment: DeploymentChannelResolver;
  optimization: OptimizationChannelResolver;
}

/** What a granted subscription starts with. */
export interface ChannelAccess<C extends Channel = Channel> {
  channel: C;
  kind: ChannelKind;
  /** The record id the channel addresses. */
  id: string;
  /** An event to send before live ones (the final state of a finished backtest), or null. */
  snapshot: ChannelData<C> | null;
}

/** Who may subscribe to which channel, and what they receive first. */
export interface ChannelService {
  /**
   * Checks that `userId` may subscribe to `channel`. Throws `VALIDATION_FAILED` for a malformed
   * name and `NOT_FOUND` for a record that is missing or belongs to another user (the very same
   * error, message included, so nothing leaks).
   */
  authorize<C extends Channel>(userId: string, channel: C): Promise<ChannelAccess<C>>;
}

/**
 * The default resolvers, each replaced by the one in `overrides` if given: deployments are looked
 * up in the store (scoped by user); backtests and optimizations are "not found" until their
 * resolver is given (`StratboxConfig.channelResolvers`).
 */
export function createStoreChannelResolvers(store: Pick<Store, 'deployments'>, overrides: Partial<ChannelResolvers> = {}): ChannelResolvers {
  return {
    backtest: overrides.backtest ?? (async () => null),
    deployment: overrides.deployment ?? (async (userId, deploymentId) => ((await store.deployments.findById(userId, deploymentId)) ? {} : null)),
    optimization: overrides.optimization ?? (async () => null),
  };
}

/** A ChannelService over one resolver per channel kind. */
export function createChannelService({ resolvers }: { resolvers: ChannelResolvers }): ChannelService {
  return {
    async authorize<C extends Channel>(userId: string, channel: C): Promise<ChannelAccess<C>> {
      const parsed = parseChannel(channel);
      if (!parsed) {
        throw new StratboxError(
          'VALIDATION_FAILED',
          'Expected a channel backtest:<bt_id>:progress, deployment:<dep_id>:orders, optimization:<opt_id>:progress or user:<your user id>:events',
        );
      }
      const notFound = new StratboxError('NOT_FOUND', `Channel ${channel} not found`);
      if (parsed.kind === 'backtest') {
        const found = await resolvers.backtest(userId, parsed.id);
        if (!found) throw notFound;
        const final = found.final && found.final.backtestId === parsed.id ? found.final : null;
        return { channel, kind: parsed.kind, id: parsed.id, snapshot: final as ChannelData<C> | null };
      }
      if (parsed.kind === 'optimization') {
        const found = await resolvers.optimization(userId, parsed.id);
        if (!found) throw notFound;
        const final = found.final && found.final.optimizationId === parsed.id ? found.final : null;
        return { channel, kind: parsed.kind, id: parsed.id, snapshot: final as ChannelData<C> | null };
      }
      if (parsed.kind === 'user') {
        // A user's own events only: any other user's channel is "not found", as a record would be.
        if (parsed.id !== userId) throw notFound;
        return { channel, kind: parsed.kind, id: parsed.id, snapshot: null };
      }
      const found = await resolvers.deployment(userId, parsed.id);
      if (!found) throw notFound;
      return { channel, kind: parsed.kind, id: parsed.id, snapshot: null };
    },
  };
}
