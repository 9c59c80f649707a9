import type { NotificationDelivery, Stratbox } from '@stratbox/core';
import { InvalidArgumentError } from 'commander';
import { formatTable, printResult } from './cli-output.js';

/*
 * `stratbox notify test <channel>`: sends a channel's test event now, through the same service as
 * `POST /api/notification-channels/:id/test`, on the server's data (DATA_DIR or DATABASE_URL, its
 * master key and its notification settings), and prints how the delivery went.
 */

export interface NotifyTestOptions {
  /** The owner of the channel, by id (`usr_...`). */
  user?: string;
  /** The owner of the channel, by one of their API keys. */
  apiKey?: string;
  json: boolean;
}

/** The user the command acts for: `--user`, or the owner of `--api-key`; exactly one. */
async function resolveUser(stratbox: Stratbox, options: NotifyTestOptions): Promise<string> {
  // an empty STRATBOX_API_KEY in the environment names no one
  const apiKey = options.apiKey || undefined;
  if ((options.user === undefined) === (apiKey === undefined)) {
    throw new InvalidArgumentError("Name the channel's owner with --user <usr_id> or --api-key <key> (STRATBOX_API_KEY), one of them.");
  }
  if (options.user !== undefined) return options.user;
  const who = await stratbox.authenticate({ headers: { authorization: `Bearer ${apiKey}` } });
  if (!who) throw new InvalidArgumentError('The API key was not accepted: no user has it.');
  return who.userId;
}

/** Sends the test and prints its delivery; resolves with the exit code (0 delivered, 1 otherwise). */
export async function notifyTest(stratbox: Stratbox, channelId: string, options: NotifyTestOptions): Promise<number> {
  const userId = await resolveUser(stratbox, options);
  const delivery: NotificationDelivery = await stratbox.notifications.test(userId, channelId);
  printResult(options.json, delivery, () =>
    formatTable([
      ['channel', delivery.channelId],
      ['delivery', delivery.id],
      ['event', delivery.eventId],
      ['status', delivery.status],
      ['attempts', String(delivery.attempts)],
      ['http status', delivery.lastStatusCode === null ? '-' : String(delivery.lastStatusCode)],
      ['error', delivery.lastError ?? '-'],
    ]),
  );
  return delivery.status === 'delivered' ? 0 : 1;
}
