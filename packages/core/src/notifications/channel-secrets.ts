import type { ChannelTarget } from '../ports/notification-sender.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { NotificationChannelRecord } from '../ports/store.js';

/** What a channel keeps sealed: its URL (a Discord URL is a secret), signing secret, bot token and chat id. */
export type ChannelSecrets = Omit<ChannelTarget, 'kind'>;

/** The additional data a channel's secrets are sealed with: they open only for this channel of this user. */
export const channelAad = (id: string, userId: string) => `notification-channel:${id}:${userId}`;

export function sealChannelSecrets(secretBox: SecretBox, id: string, userId: string, secrets: ChannelSecrets) {
  return secretBox.seal(JSON.stringify(secrets), channelAad(id, userId));
}

/** The channel's target with its secrets, for the sender only. */
export async function openChannelTarget(secretBox: SecretBox, channel: NotificationChannelRecord): Promise<ChannelTarget> {
  const bytes = await secretBox.open(channel.secrets, channelAad(channel.id, channel.userId));
  return { kind: channel.kind, ...(JSON.parse(new TextDecoder().decode(bytes)) as ChannelSecrets) };
}

/** Where a channel sends, without secrets: a webhook's origin, a Telegram chat, the last 4 characters of a Discord webhook. */
export function targetHint(target: ChannelTarget): string {
  if (target.kind === 'telegram') return `telegram chat ${target.chatId ?? ''}`;
  const url = new URL(target.url ?? '');
  if (target.kind === 'discord') return `discord webhook …${url.pathname.replace(/\/+$/, '').slice(-4)}`;
  return url.origin;
}
