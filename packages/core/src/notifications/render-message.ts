import type { NotificationSeverity, WebhookPayload } from '@stratbox/contract';

/*
 * The plain-text message Telegram and Discord show for a payload: a severity marker and the
 * summary on the first line, then the event type, the time and the record; a digest says how
 * many events it stands for and in which minute. Plain text only (Telegram gets no parse_mode,
 * Discord no mentions), so nothing in a summary can format or ping.
 */

/** Telegram's limit on a message's text. */
export const TELEGRAM_MAX_CHARS = 4096;
/** Discord's limit on a message's `content`. */
export const DISCORD_MAX_CHARS = 2000;

const MARKERS: Record<NotificationSeverity, string> = { info: 'ℹ️ INFO', warning: '⚠️ WARNING', critical: '🚨 CRITICAL' };

/** `text` cut to at most `max` UTF-16 units, ending with "…" when cut, never inside a surrogate pair. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

function minute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** The message for `payload`, at most `maxChars` long (default Discord's 2000, the smaller limit). */
export function renderMessage(payload: WebhookPayload, maxChars = DISCORD_MAX_CHARS): string {
  const lines = [`${MARKERS[payload.severity]}: ${payload.summary}`];
  if (payload.type === 'digest') {
    const { eventType, count, from, to } = payload.digest;
    lines.push(`Digest: ${count} × ${eventType} from ${minute(from)} to ${minute(to)}`);
  } else {
    lines.push(`Event: ${payload.type}`);
  }
  lines.push(`Time: ${payload.time}`, `Subject: ${payload.subject.kind} ${payload.subject.id}`);
  return truncateText(lines.join('\n'), maxChars);
}
