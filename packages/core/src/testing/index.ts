/** `@stratbox/core/testing`: an in-memory Store and the Store contract suite every Store runs. */
export { createMemoryStore } from './memory-store.js';
export { describeStoreContract, type StoreFactory } from './store-contract.js';
export { listenLocally, type LocalServer } from './listen-locally.js';
export {
  startFakeBinance,
  FAKE_BINANCE_API_KEY,
  FAKE_BINANCE_SECRET,
  FAKE_BINANCE_MARK,
  fakeBinanceKline,
  secretEchoes,
  type FakeBinance,
  type FakeBinanceCall,
  type FakeOrder,
  type OrderFault,
} from './fake-binance-usdm.js';
export { describeExchangeGatewayContract, type ExchangeGatewayFactory, type ExchangeGatewayHarness } from './exchange-gateway-contract.js';
export { createFakeBinanceAccount, fakeServerTime, type FakeBinanceAccount, type FakeRateLimitAnswer } from './fake-binance-faults.js';
export { fillPart, refuseStopOrders } from './fake-binance-order-faults.js';
export { startFakeBinanceUserStream, type FakeUserStream } from './fake-binance-user-stream.js';
export { FAKE_SPOT_SYMBOL, fillSpotOrder, startFakeBinanceSpot, type FakeBinanceSpot, type FakeSpotOrder } from './fake-binance-spot.js';
export { startWebhookReceiver, webhookSignatureProblem, type ReceivedWebhook, type ReceiverAnswer, type WebhookReceiver } from './webhook-receiver.js';
export { startFakeTelegramBotApi, type FakeTelegramBotApi, type FakeTelegramMessage } from './fake-telegram-bot-api.js';
export { startFakeDiscordWebhook, type FakeDiscordWebhook, type FakeDiscordMessage } from './fake-discord-webhook.js';
