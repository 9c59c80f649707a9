import {
  NOTIFICATION_EVENT_TYPES,
  type CreateNotificationChannelBody,
  type NotificationChannelKind,
  type NotificationEventType,
  type NotificationSeverity,
} from '@stratbox/client';

/** What the add-a-channel form holds, as typed. */
export interface ChannelFormValues {
  kind: NotificationChannelKind;
  label: string;
  /** The webhook's URL, or the Discord webhook's URL. */
  url: string;
  botToken: string;
  chatId: string;
  /** Every event type, or only those in `events`. */
  allEvents: boolean;
  events: NotificationEventType[];
  minSeverity: NotificationSeverity;
}

/** The event types a person picks from: all but `notification.test`, which the Test button sends to a channel whatever it picked. */
export const PICKABLE_EVENT_TYPES: NotificationEventType[] = NOTIFICATION_EVENT_TYPES.filter((type) => type !== 'notification.test');

export const EMPTY_CHANNEL_FORM: ChannelFormValues = {
  kind: 'webhook',
  label: '',
  url: '',
  botToken: '',
  chatId: '',
  allEvents: true,
  events: [],
  minSeverity: 'info',
};

/** The request body of the form: only the fields of its kind, the events as `["*"]` or the picked types in catalogue order. */
export function toCreateBody(values: ChannelFormValues): CreateNotificationChannelBody {
  const events = values.allEvents ? ['*' as const] : PICKABLE_EVENT_TYPES.filter((type) => values.events.includes(type));
  const common = { label: values.label.trim(), events, minSeverity: values.minSeverity };
  switch (values.kind) {
    case 'webhook':
      return { kind: 'webhook', url: values.url.trim(), ...common };
    case 'discord':
      return { kind: 'discord', url: values.url.trim(), ...common };
    case 'telegram':
      return { kind: 'telegram', botToken: values.botToken.trim(), chatId: values.chatId.trim(), ...common };
  }
}

/** Problems the form can name before asking the service (the service checks the rest: URL, token and chat id shapes, refused hosts). */
export function checkChannelForm(values: ChannelFormValues): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  if (!values.label.trim()) problems.label = ['Give the channel a label'];
  if (!values.allEvents && values.events.length === 0) problems.events = ['Pick at least one event, or all events'];
  if (values.kind === 'telegram') {
    if (!values.botToken.trim()) problems.botToken = ['Paste the bot token from @BotFather'];
    if (!values.chatId.trim()) problems.chatId = ['Give the chat id'];
  } else if (!values.url.trim()) problems.url = ['Give the URL'];
  return problems;
}
