/** What an operator can set about notifications (`StratboxConfig.notifications`; docs/notifications.md). */
export interface NotificationsConfig {
  /**
   * Hosts or CIDRs (e.g. `127.0.0.1`, `hooks.internal`, `10.0.0.0/8`) admitted although they are
   * private, loopback or link-local, and reachable over plain HTTP. Default: none. The example
   * server reads it from `STRATBOX_NOTIFY_ALLOW_HOSTS` (comma-separated).
   */
  allowHosts?: readonly string[];
  /** The Telegram Bot API's base URL (default `https://api.telegram.org`; `STRATBOX_TELEGRAM_API_BASE`). */
  telegramApiBase?: string;
  /** What a Discord webhook URL must start with (default `https://discord.com/api/webhooks/`; `STRATBOX_DISCORD_WEBHOOK_BASE`). */
  discordWebhookBase?: string;
  /** Retries of a failing delivery: the first after `firstDelayMs` (30 s), doubling to at most `maxDelayMs` (1 h), each ±20 % jitter, until `giveUpAfterMs` (24 h) after the delivery was created. */
  retry?: { firstDelayMs?: number; maxDelayMs?: number; giveUpAfterMs?: number };
  /** Flood control: identical events (same type, same record) sent one by one per channel and UTC minute before the rest become one digest (default 5). */
  perMinute?: number;
  /** How often each node looks for new events and due deliveries (default 250 ms). */
  pollIntervalMs?: number;
  /** Timeout of one attempt (default 10 s). */
  timeoutMs?: number;
  /** Bytes of an answer read back at most (default 64 KiB). */
  maxResponseBytes?: number;
  /** Deliveries this node sends at once (default 8); 0 sends none here (the dispatcher still runs). */
  concurrency?: number;
}

export interface NotificationSettings {
  allowHosts: readonly string[];
  telegramApiBase: string;
  discordWebhookBase: string;
  retry: { firstDelayMs: number; maxDelayMs: number; giveUpAfterMs: number };
  perMinute: number;
  pollIntervalMs: number;
  timeoutMs: number;
  maxResponseBytes: number;
  concurrency: number;
}

export const DEFAULT_TELEGRAM_API_BASE = 'https://api.telegram.org';
export const DEFAULT_DISCORD_WEBHOOK_BASE = 'https://discord.com/api/webhooks/';

/** The settings with every default filled in. */
export function resolveNotificationSettings(config: NotificationsConfig = {}): NotificationSettings {
  return {
    allowHosts: config.allowHosts ?? [],
    telegramApiBase: (config.telegramApiBase ?? DEFAULT_TELEGRAM_API_BASE).replace(/\/+$/, ''),
    discordWebhookBase: config.discordWebhookBase ?? DEFAULT_DISCORD_WEBHOOK_BASE,
    retry: {
      firstDelayMs: config.retry?.firstDelayMs ?? 30_000,
      maxDelayMs: config.retry?.maxDelayMs ?? 3_600_000,
      giveUpAfterMs: config.retry?.giveUpAfterMs ?? 86_400_000,
    },
    perMinute: config.perMinute ?? 5,
    pollIntervalMs: config.pollIntervalMs ?? 250,
    timeoutMs: config.timeoutMs ?? 10_000,
    maxResponseBytes: config.maxResponseBytes ?? 65_536,
    concurrency: config.concurrency ?? 8,
  };
}

/** Splits an environment value such as `STRATBOX_NOTIFY_ALLOW_HOSTS` into its entries. */
export function splitHostList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}
