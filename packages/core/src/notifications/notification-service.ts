import type { z } from 'zod';
import {
  CreateNotificationChannelBody,
  ListNotificationDeliveriesQuery,
  UpdateNotificationChannelBody,
  type CreatedNotificationChannel,
  type NotificationChannel,
  type NotificationDelivery,
} from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { NotificationChannelRecord, NotificationDeliveryRecord, Store } from '../ports/store.js';
import { paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { parseInput } from '../util/validate.js';
import { openChannelTarget, sealChannelSecrets, targetHint, type ChannelSecrets } from './channel-secrets.js';
import type { DeliveryAttempt } from './delivery-attempt.js';
import type { NotificationSettings } from './notification-settings.js';
import { toChannelView, toDeliveryView, toEventView } from './notification-views.js';
import { recordNotificationEvent } from './record-event.js';
import { newSigningSecret } from './webhook-signature.js';
import { isDiscordWebhookUrl } from './discord-sender.js';

type PageInput = { limit?: number | undefined; cursor?: string | undefined };

export interface NotificationServiceDeps {
  store: Store;
  clock: Clock;
  secretBox: SecretBox;
  settings: Pick<NotificationSettings, 'discordWebhookBase'>;
  /** Throws 400 `VALIDATION_FAILED` when a URL may not be sent to (the guarded HTTP client's check). */
  checkUrl: (url: string) => Promise<void>;
  /** One attempt at a delivery (for test sends). */
  attempt: DeliveryAttempt;
  /** How many channels the user's plan allows. */
  channelLimit: (userId: string) => Promise<number>;
}

/** A 400 about one field of the body. */
function invalid(path: string, message: string): StratboxError {
  return new StratboxError('VALIDATION_FAILED', message, [{ path, message }]);
}

/**
 * The `/api/notification-channels` routes and the events list: channels scoped to their owner
 * (another user's is a 404 everywhere), secrets sealed at rest and never returned (a webhook's
 * signing secret once, at create), targets checked at create and update.
 */
export function createNotificationService({ store, clock, secretBox, settings, checkUrl, attempt, channelLimit }: NotificationServiceDeps) {
  async function load(userId: string, id: string): Promise<NotificationChannelRecord> {
    const record = await store.notificationChannels.findById(userId, id);
    if (!record) throw notFound('Notification channel', id);
    return record;
  }

  /** Checks a target the user gave (the URL of a webhook or a Discord webhook); a refused one is a 400 on `url`. */
  async function checkTarget(kind: NotificationChannelRecord['kind'], url: string | undefined): Promise<void> {
    if (url === undefined) return;
    if (kind === 'discord' && !isDiscordWebhookUrl(url, settings.discordWebhookBase)) {
      throw invalid('url', `A Discord webhook URL is ${settings.discordWebhookBase}<id>/<token>`);
    }
    try {
      await checkUrl(url);
    } catch (error) {
      if (error instanceof StratboxError && error.code === 'VALIDATION_FAILED') throw invalid('url', error.message);
      throw error;
    }
  }

  return {
    async list(userId: string, query: PageInput) {
      const page = await paginate(query, (p) => store.notificationChannels.list(userId, p));
      return { channels: page.items.map(toChannelView), nextCursor: page.nextCursor };
    },

    async get(userId: string, id: string): Promise<NotificationChannel> {
      return toChannelView(await load(userId, id));
    },

    async create(userId: string, input: z.input<typeof CreateNotificationChannelBody>): Promise<CreatedNotificationChannel> {
      const body = parseInput(CreateNotificationChannelBody, input, 'body');
      const url = body.kind === 'telegram' ? undefined : body.url;
      await checkTarget(body.kind, url);
      const id = newId('notificationChannel');
      const signingSecret = body.kind === 'webhook' ? newSigningSecret() : null;
      const secrets: ChannelSecrets =
        body.kind === 'telegram' ? { botToken: body.botToken, chatId: body.chatId } : { url: body.url, ...(signingSecret ? { signingSecret } : {}) };
      const now = clock.now().toISOString();
      const record: NotificationChannelRecord = {
        id,
        userId,
        kind: body.kind,
        label: body.label,
        events: [...new Set(body.events)],
        minSeverity: body.minSeverity,
        status: 'active',
        pausedReason: null,
        target: targetHint({ kind: body.kind, ...secrets }),
        secrets: await sealChannelSecrets(secretBox, id, userId, secrets),
        createdAt: now,
        updatedAt: now,
      };
      const limit = await channelLimit(userId);
      await store.transaction(async (tx) => {
        await tx.users.lock(userId);
        const used = await tx.notificationChannels.count(userId);
        if (used >= limit) {
          throw new StratboxError('PLAN_LIMIT_EXCEEDED', `Your plan allows ${limit} notification channels; delete one or upgrade`, {
            counter: 'notificationChannels',
            used,
            limit,
          });
        }
        await tx.notificationChannels.insert(record);
      });
      return { ...toChannelView(record), signingSecret };
    },

    async update(userId: string, id: string, input: z.input<typeof UpdateNotificationChannelBody>): Promise<NotificationChannel> {
      const body = parseInput(UpdateNotificationChannelBody, input, 'body');
      const record = await load(userId, id);
      if (record.kind === 'telegram' && body.url !== undefined) throw invalid('url', 'A Telegram channel has no URL: change botToken or chatId');
      if (record.kind !== 'telegram' && (body.botToken !== undefined || body.chatId !== undefined)) {
        throw invalid(body.botToken !== undefined ? 'botToken' : 'chatId', `A ${record.kind} channel has no bot token or chat id: change url`);
      }
      await checkTarget(record.kind, body.url);
      const now = clock.now().toISOString();
      const patch: Parameters<typeof store.notificationChannels.update>[2] = { updatedAt: now };
      if (body.label !== undefined) patch.label = body.label;
      if (body.events !== undefined) patch.events = [...new Set(body.events)];
      if (body.minSeverity !== undefined) patch.minSeverity = body.minSeverity;
      if (body.paused !== undefined) {
        patch.status = body.paused ? 'paused' : 'active';
        patch.pausedReason = body.paused ? 'Paused by its owner' : null;
      }
      if (body.url !== undefined || body.botToken !== undefined || body.chatId !== undefined) {
        const { kind, ...current } = await openChannelTarget(secretBox, record);
        const secrets: ChannelSecrets = {
          ...current,
          ...(body.url === undefined ? {} : { url: body.url }),
          ...(body.botToken === undefined ? {} : { botToken: body.botToken }),
          ...(body.chatId === undefined ? {} : { chatId: body.chatId }),
        };
        patch.secrets = await sealChannelSecrets(secretBox, id, userId, secrets);
        patch.target = targetHint({ kind, ...secrets });
      }
      const updated = await store.notificationChannels.update(userId, id, patch);
      if (!updated) throw notFound('Notification channel', id);
      return toChannelView(updated);
    },

    async delete(userId: string, id: string): Promise<void> {
      if (!(await store.notificationChannels.delete(userId, id))) throw notFound('Notification channel', id);
    },

    /**
     * Sends a `notification.test` event to this channel now (paused or not) and answers the
     * delivery: one attempt through the same signed, guarded path, logged with its deliveries.
     */
    async test(userId: string, id: string): Promise<NotificationDelivery> {
      const channel = await load(userId, id);
      const now = clock.now().toISOString();
      const delivery = await store.transaction(async (tx) => {
        const eventId = await recordNotificationEvent(tx, {
          type: 'notification.test',
          userId,
          subject: { kind: 'channel', id: channel.id },
          summary: `Test notification to "${channel.label}" from Stratbox`,
          data: { channelId: channel.id },
          time: now,
          onlyChannelId: channel.id,
        });
        if (eventId === null) throw new StratboxError('INTERNAL', 'The test event could not be written');
        await tx.notificationEvents.markDispatched(eventId, now);
        const record: NotificationDeliveryRecord = {
          id: newId('notificationDelivery'),
          userId,
          channelId: channel.id,
          eventId,
          eventType: 'notification.test',
          floodKey: `notification.test|${channel.id}`,
          digestKey: null,
          eventCount: 1,
          lastEventId: eventId,
          status: 'pending',
          attempts: 0,
          // Never claimed by the delivery loop: this request makes the one attempt.
          nextAttemptAt: null,
          leaseUntil: null,
          lastStatusCode: null,
          lastError: null,
          createdAt: now,
          updatedAt: now,
          deliveredAt: null,
        };
        await tx.notificationDeliveries.insert(record);
        return record;
      });
      const attempted = await attempt(delivery, { retry: false });
      return toDeliveryView(attempted ?? delivery);
    },

    async deliveries(userId: string, id: string, input: z.input<typeof ListNotificationDeliveriesQuery>) {
      const query = parseInput(ListNotificationDeliveriesQuery, input, 'query');
      await load(userId, id);
      const filter = query.status === undefined ? undefined : { status: query.status };
      const page = await paginate(query, (p) => store.notificationDeliveries.listByChannel(userId, id, p, filter));
      return { deliveries: page.items.map(toDeliveryView), nextCursor: page.nextCursor };
    },

    async events(userId: string, query: PageInput) {
      const page = await paginate(query, (p) => store.notificationEvents.list(userId, p));
      return { events: page.items.map(toEventView), nextCursor: page.nextCursor };
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
