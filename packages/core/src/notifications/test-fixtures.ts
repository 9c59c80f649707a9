import type { WebhookPayload } from '@stratbox/contract';
import type { SendRequest } from '../ports/notification-sender.js';

/** Payloads and requests for the sender tests. */
export const completedEvent: WebhookPayload = {
  id: 'evt_4fJq0cWzYb3kR9tLmN2pXa',
  type: 'backtest.completed',
  severity: 'info',
  time: '2026-03-01T11:59:58.000Z',
  userId: 'usr_4fJq0cWzYb3kR9tLmN2pXa',
  subject: { kind: 'backtest', id: 'bt_4fJq0cWzYb3kR9tLmN2pXa' },
  summary: 'Backtest bt_4fJq0cWzYb3kR9tLmN2pXa completed: +4.20 %',
  data: {
    backtestId: 'bt_4fJq0cWzYb3kR9tLmN2pXa',
    strategyId: 'str_4fJq0cWzYb3kR9tLmN2pXa',
    metrics: { totalReturn: 0.042, maxDrawdown: 0.1, sharpe: 1.2, tradeCount: 12 },
  },
};

export const fillDigest: WebhookPayload = {
  id: 'ndl_4fJq0cWzYb3kR9tLmN2pXa',
  type: 'digest',
  severity: 'info',
  time: '2026-03-01T12:01:00.000Z',
  userId: 'usr_4fJq0cWzYb3kR9tLmN2pXa',
  subject: { kind: 'deployment', id: 'dep_4fJq0cWzYb3kR9tLmN2pXa' },
  summary: '995 more fills on deployment dep_4fJq0cWzYb3kR9tLmN2pXa',
  digest: {
    eventType: 'deployment.order.filled',
    count: 995,
    from: '2026-03-01T12:00:00.000Z',
    to: '2026-03-01T12:01:00.000Z',
    firstEventId: 'evt_aaaaaaaaaaaaaaaaaaaaaa',
    lastEventId: 'evt_bbbbbbbbbbbbbbbbbbbbbb',
  },
};

export function sendRequest(target: SendRequest['target'], payload: WebhookPayload = completedEvent): SendRequest {
  return { channelId: 'nch_4fJq0cWzYb3kR9tLmN2pXa', target, payload, idempotencyKey: payload.id, attempt: 1 };
}
