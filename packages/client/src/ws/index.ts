export {
  createRealtimeClient,
  type RealtimeClient,
  type RealtimeOptions,
  type RealtimeState,
  type SubscribeOptions,
  type Unsubscribe,
} from './realtime-client.js';
export { reconnectDelay, type ReconnectOptions } from './backoff.js';
export type { WebSocketConstructor, WebSocketLike } from './websocket-like.js';
