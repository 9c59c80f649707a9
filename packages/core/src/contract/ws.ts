import { z } from 'zod';
import { ErrorCodeSchema } from './common.js';
import { BacktestProgressEvent } from './backtests.js';
import { DeploymentOrderEvent } from './deployments.js';
import { idPattern } from './ids.js';

/** `backtest:<id>:progress` or `deployment:<id>:orders` (API.md, "WebSocket"). */
export const CHANNEL_PATTERN = new RegExp(`^(?:backtest:(${idPattern('backtest')}):progress|deployment:(${idPattern('deployment')}):orders)$`);

export const ChannelName = z.string().max(200).regex(CHANNEL_PATTERN, {
  message: 'Expected backtest:<bt_id>:progress or deployment:<dep_id>:orders',
});

const ClientRef = z.string().min(1).max(64);

export const WsAuthMessage = z.strictObject({ type: z.literal('auth'), token: z.string().min(1).max(1024) });
export const WsSubscribeMessage = z.strictObject({ type: z.literal('subscribe'), channel: ChannelName, id: ClientRef });
export const WsUnsubscribeMessage = z.strictObject({ type: z.literal('unsubscribe'), channel: ChannelName, id: ClientRef });
export const WsClientMessage = z.discriminatedUnion('type', [WsAuthMessage, WsSubscribeMessage, WsUnsubscribeMessage]);
export type WsClientMessage = z.infer<typeof WsClientMessage>;

export const WsAckMessage = z.object({ type: z.enum(['subscribed', 'unsubscribed']), channel: ChannelName, id: ClientRef });
export const WsAuthenticatedMessage = z.object({ type: z.literal('authenticated'), userId: z.string() });
export const WsEventMessage = z.object({
  type: z.literal('event'),
  channel: ChannelName,
  data: z.union([BacktestProgressEvent, DeploymentOrderEvent]),
});
export const WsErrorMessage = z.object({
  type: z.literal('error'),
  id: ClientRef.nullable(),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }),
});
export const WsServerMessage = z.union([WsAckMessage, WsAuthenticatedMessage, WsEventMessage, WsErrorMessage]);
export type WsServerMessage = z.infer<typeof WsServerMessage>;

/** Payload type carried by each channel kind. */
export type ChannelData<C extends string> = C extends `backtest:${string}:progress`
  ? z.infer<typeof BacktestProgressEvent>
  : C extends `deployment:${string}:orders`
    ? z.infer<typeof DeploymentOrderEvent>
    : never;
