import { splitHostList, type StratboxConfig } from '@stratbox/core';
import type { ServerEnv } from './env.js';

/**
 * Notification settings of the example server, from the parsed environment (env.ts describes
 * each): STRATBOX_NOTIFY_ALLOW_HOSTS, STRATBOX_NOTIFY_TIMEOUT_MS, STRATBOX_NOTIFY_RETRY_MS, STRATBOX_TELEGRAM_API_BASE,
 * STRATBOX_DISCORD_WEBHOOK_BASE.
 * A process that runs no jobs (`api`) still moves events from the outbox but sends nothing.
 */
export function readNotificationConfig(env: ServerEnv, sends: boolean): NonNullable<StratboxConfig['notifications']> {
  return {
    allowHosts: splitHostList(env.STRATBOX_NOTIFY_ALLOW_HOSTS),
    ...(env.STRATBOX_TELEGRAM_API_BASE ? { telegramApiBase: env.STRATBOX_TELEGRAM_API_BASE } : {}),
    ...(env.STRATBOX_DISCORD_WEBHOOK_BASE ? { discordWebhookBase: env.STRATBOX_DISCORD_WEBHOOK_BASE } : {}),
    ...(env.STRATBOX_NOTIFY_TIMEOUT_MS ? { timeoutMs: env.STRATBOX_NOTIFY_TIMEOUT_MS } : {}),
    ...(env.STRATBOX_NOTIFY_RETRY_MS ? { retry: { firstDelayMs: env.STRATBOX_NOTIFY_RETRY_MS } } : {}),
    ...(sends ? {} : { concurrency: 0 }),
  };
}
