import { FormField } from '../ui/form-field.js';
import type { ChannelFormValues } from './channel-form-values.js';

interface TargetFieldsProps {
  values: ChannelFormValues;
  onChange(change: Partial<ChannelFormValues>): void;
  problems: Record<string, string[]>;
}

const URL_HINT: Record<'webhook' | 'discord', string> = {
  webhook: 'An HTTPS URL that takes a POST of JSON. Each delivery is signed (Stratbox-Signature); the signing secret is shown once, after you add it.',
  discord: 'Server Settings → Integrations → Webhooks → Copy Webhook URL. It is kept encrypted and never shown again.',
};

/** Where a channel sends: a URL (webhook, Discord), or a bot token and a chat id (Telegram). */
export function ChannelTargetFields({ values, onChange, problems }: TargetFieldsProps) {
  const field = (name: 'url' | 'botToken' | 'chatId', label: string, hint: string, type = 'text') => (
    <FormField id={`channel-${name}`} label={label} hint={hint} errors={problems[name]} grow>
      {(describedBy, invalid) => (
        <input
          id={`channel-${name}`}
          type={type}
          value={values[name]}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => onChange({ [name]: e.target.value })}
          aria-invalid={invalid}
          aria-describedby={describedBy}
        />
      )}
    </FormField>
  );
  if (values.kind === 'telegram') {
    return (
      <div className="form-row">
        {field('botToken', 'Bot token', 'From @BotFather, e.g. 123456:ABC-DEF…; kept encrypted, never shown again.', 'password')}
        {field('chatId', 'Chat id', 'A numeric chat id (negative for groups) or @channelusername; add the bot to the chat first.')}
      </div>
    );
  }
  return field('url', values.kind === 'webhook' ? 'Webhook URL' : 'Discord webhook URL', URL_HINT[values.kind], 'url');
}
