import ccxt from 'ccxt';
import { createCcxtGateway } from './ccxt-gateway.js';
import { createPaperGateway } from './paper-gateway.js';
import { describeExchangeGatewayContract } from '../testing/exchange-gateway-contract.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance } from '../testing/fake-binance-usdm.js';
import { moveExchangeApi } from './move-exchange-api.js';

/* The ExchangeGateway contract suite, run by both gateways: paper, and ccxt's real binanceusdm class against the local double. */

const SYMBOL = 'BTC/USDT:USDT';

describeExchangeGatewayContract('paper (LINEAR)', async () => ({
  gateway: createPaperGateway({
    prices: (s) => (s === SYMBOL ? 100 : undefined),
    fees: { maker: 0.001, taker: 0.002 },
    initialBalance: 10_000,
    symbols: [SYMBOL],
  }),
  symbol: SYMBOL,
  quantity: 1,
  restingBuyPrice: 50,
  currency: 'USDT',
  cleanup: async () => {},
}));

describeExchangeGatewayContract('ccxt binanceusdm against the local double', async () => {
  const fake = await startFakeBinance();
  const exchange = new ccxt.binanceusdm({ apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET, enableRateLimit: true, timeout: 2000 });
  moveExchangeApi(exchange, fake.url);
  return {
    gateway: createCcxtGateway({ exchange, marketType: 'LINEAR', retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } }),
    symbol: SYMBOL,
    quantity: 0.01,
    restingBuyPrice: 30_000,
    currency: 'USDT',
    cleanup: () => fake.close(),
  };
});
