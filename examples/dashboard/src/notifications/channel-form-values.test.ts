import { describe, expect, it } from 'vitest';
import { checkChannelForm, EMPTY_CHANNEL_FORM, PICKABLE_EVENT_TYPES, toCreateBody } from './channel-form-values.js';

describe('the add-a-channel form', () => {
  it('sends a webhook with all events as ["*"], the label and URL trimmed', () => {
    expect(toCreateBody({ ...EMPTY_CHANNEL_FORM, label: ' Ops ', url: ' https://hooks.example.com/x ', botToken: 'left over' })).toEqual({
      kind: 'webhook',
      label: 'Ops',
      url: 'https://hooks.example.com/x',
      events: ['*'],
      minSeverity: 'info',
    });
  });

  it('sends Telegram with its token and chat id only, and picked events in catalogue order', () => {
    const body = toCreateBody({
      ...EMPTY_CHANNEL_FORM,
      kind: 'telegram',
      label: 'Phone',
      url: 'https://left.over',
      botToken: '123456:abcdefghijklmnopqrstuvwxyz',
      chatId: '-100200',
      allEvents: false,
      events: ['backtest.completed', 'deployment.failed'],
      minSeverity: 'warning',
    });
    expect(body).toEqual({
      kind: 'telegram',
      label: 'Phone',
      botToken: '123456:abcdefghijklmnopqrstuvwxyz',
      chatId: '-100200',
      events: ['deployment.failed', 'backtest.completed'],
      minSeverity: 'warning',
    });
  });

  it('names what is missing before asking the service', () => {
    expect(checkChannelForm({ ...EMPTY_CHANNEL_FORM, allEvents: false })).toEqual({
      label: ['Give the channel a label'],
      events: ['Pick at least one event, or all events'],
      url: ['Give the URL'],
    });
    expect(checkChannelForm({ ...EMPTY_CHANNEL_FORM, kind: 'telegram', label: 'x' })).toEqual({
      botToken: ['Paste the bot token from @BotFather'],
      chatId: ['Give the chat id'],
    });
  });

  it('offers every event type but the test event', () => {
    expect(PICKABLE_EVENT_TYPES).toContain('deployment.heartbeat.missed');
    expect(PICKABLE_EVENT_TYPES).not.toContain('notification.test');
  });
});
