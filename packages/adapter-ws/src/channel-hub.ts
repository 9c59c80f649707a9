import { channelDataSchema, isFinalProgress, parseChannel, type Channel, type ChannelKind, type EventBus, type Logger, type Unsubscribe } from '@stratbox/core';
import type { WsCounters } from './ws-context.js';

/** The part of a connection the hub writes to. */
export interface HubMember {
  /** Writes one serialized server message; `droppable` events may be skipped for a slow reader. */
  sendFrame(frame: Buffer, droppable: boolean): void;
}

interface PendingEvent {
  frame: Buffer;
  droppable: boolean;
}

interface ChannelEntry {
  kind: ChannelKind;
  id: string;
  /** Each member, with the events held for it while its subscription is being authorized (null once active). */
  members: Map<HubMember, PendingEvent[] | null>;
  /** Settles once the bus delivers this channel's events. */
  ready: Promise<void>;
  unsubscribe: Unsubscribe | null;
  removed: boolean;
}

/** Events held for one member while its subscription is authorized, beyond which intermediate progress is dropped. */
const MAX_PENDING = 64;

/**
 * Fans each channel's events out to the sockets subscribed to it: one bus subscription per
 * channel however many sockets listen, each event validated against the contract and
 * serialized once. A socket joins as pending (events are held for it, never sent) until its
 * access is granted, so nothing reaches a socket that turns out not to own the channel, and
 * nothing published while access is checked is lost.
 */
export class ChannelHub {
  private readonly entries = new Map<string, ChannelEntry>();
  private subscriptionCount = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
    private readonly counters: WsCounters,
  ) {}

  /** Adds a pending member; resolves once the channel's events flow (rejects if the bus refuses). */
  async join(channel: Channel, member: HubMember): Promise<void> {
    let entry = this.entries.get(channel);
    if (!entry) {
      const parsed = parseChannel(channel);
      if (!parsed) throw new TypeError(`Not a channel: ${channel}`);
      const created: ChannelEntry = { kind: parsed.kind, id: parsed.id, members: new Map(), ready: Promise.resolve(), unsubscribe: null, removed: false };
      created.ready = this.bus
        .subscribe(channel, (data) => this.deliver(created, channel, data))
        .then(
          (unsubscribe) => {
            if (created.removed) unsubscribe();
            else created.unsubscribe = unsubscribe;
          },
          (error: unknown) => {
            this.remove(channel, created);
            throw error;
          },
        );
      this.entries.set(channel, created);
      entry = created;
    }
    if (!entry.members.has(member)) {
      entry.members.set(member, []);
      this.subscriptionCount++;
    }
    await entry.ready;
  }

  /**
   * Makes a pending member active: sends `snapshot` first (if any), then the events held for it.
   * A final snapshot makes the held progress events moot: they are older or the same.
   */
  activate(channel: Channel, member: HubMember, snapshot: unknown): void {
    const entry = this.entries.get(channel);
    const held = entry?.members.get(member);
    if (!entry || held === undefined || held === null) return;
    entry.members.set(member, null);
    let finalSent = false;
    if (snapshot) {
      const frame = this.serialize(entry, channel, snapshot);
      if (frame) {
        member.sendFrame(frame.frame, false);
        finalSent = entry.kind === 'backtest' && !frame.droppable;
      }
    }
    for (const event of held) {
      if (finalSent) break;
      member.sendFrame(event.frame, event.droppable);
      if (entry.kind === 'backtest' && !event.droppable) finalSent = true;
    }
  }

  /** Removes a member (pending or active); the last one out ends the bus subscription. */
  leave(channel: string, member: HubMember): void {
    const entry = this.entries.get(channel);
    if (!entry || !entry.members.delete(member)) return;
    this.subscriptionCount--;
    if (entry.members.size === 0) this.remove(channel, entry);
  }

  /** Channels with at least one member, and memberships in all. */
  size(): { channels: number; subscriptions: number } {
    return { channels: this.entries.size, subscriptions: this.subscriptionCount };
  }

  /** Ends every bus subscription. */
  close(): void {
    for (const [channel, entry] of [...this.entries]) this.remove(channel, entry);
  }

  private remove(channel: string, entry: ChannelEntry): void {
    if (this.entries.get(channel) === entry) this.entries.delete(channel);
    entry.removed = true;
    this.subscriptionCount -= entry.members.size;
    entry.members.clear();
    if (entry.unsubscribe) {
      entry.unsubscribe();
      entry.unsubscribe = null;
    }
  }

  private deliver(entry: ChannelEntry, channel: string, data: unknown): void {
    if (entry.removed || entry.members.size === 0) return;
    const serialized = this.serialize(entry, channel, data);
    if (!serialized) return;
    const { frame, droppable } = serialized;
    for (const [member, held] of entry.members) {
      if (held === null) member.sendFrame(frame, droppable);
      else if (held.length < MAX_PENDING || !droppable) held.push(serialized);
      else this.counters.droppedEvents++;
    }
  }

  /** The event message, validated against the contract (data of this channel's kind and record), or null. */
  private serialize(entry: ChannelEntry, channel: string, data: unknown): PendingEvent | null {
    const parsed = channelDataSchema(entry.kind).safeParse(data);
    const ownerId = parsed.success ? recordIdOf(parsed.data) : null;
    if (!parsed.success || ownerId !== entry.id) {
      this.logger.error('Dropped an event that does not match its channel in the contract', {
        channel,
        problems: parsed.success ? ['record id differs from the channel'] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      });
      return null;
    }
    // Progress events (backtests, optimizations) are droppable: a later one says more; the final one, orders and a user's events never are.
    const droppable = (entry.kind === 'backtest' || entry.kind === 'optimization') && !isFinalProgress(parsed.data as { status: string });
    return { frame: Buffer.from(JSON.stringify({ type: 'event', channel, data: parsed.data })), droppable };
  }
}

/** The id of the record an event's data belongs to. */
function recordIdOf(data: object): string {
  // A notification event belongs to its user; its subject (a backtest...) is inside.
  if ('userId' in data && 'subject' in data) return String(data.userId);
  if ('backtestId' in data) return String(data.backtestId);
  if ('optimizationId' in data) return String(data.optimizationId);
  return String((data as { deploymentId: string }).deploymentId);
}
