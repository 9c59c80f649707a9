/*
 * The exchange ids a credential may name: ccxt's exchange ids plus `paper`, the built-in
 * simulated exchange.
 *
 * The ccxt list is copied here (from ccxt 4.5.84's `ccxt.exchanges`) because importing ccxt
 * takes most of a second; validating a credential must not. `ccxt-exchanges.test.ts` compares
 * it with the installed ccxt, so a ccxt upgrade that adds or drops an exchange fails the tests
 * until the list is refreshed:
 *   node --input-type=module -e "import c from 'ccxt'; console.log(JSON.stringify(c.exchanges))"
 */

/** The id of the built-in simulated exchange. */
export const PAPER_EXCHANGE_ID = 'paper';

/** ccxt's exchange ids (`ccxt.exchanges`), in ccxt's order. */
export const CCXT_EXCHANGE_IDS: readonly string[] = Object.freeze([
  'alpaca', 'apex', 'aster', 'backpack', 'bequant', 'bigone', 'binance', 'binancecoinm',
  'binanceus', 'binanceusdm', 'bingx', 'bit2c', 'bitbank', 'bitbns', 'bitfinex', 'bitflyer',
  'bitget', 'bithumb', 'bitopro', 'bitrue', 'bitso', 'bitstamp', 'bitteam', 'bittrade', 'bitvavo',
  'blockchaincom', 'blofin', 'btcbox', 'btcmarkets', 'btcturk', 'btse', 'bullish', 'bybit',
  'bybiteu', 'bybitid', 'bydfi', 'cex', 'coinbase', 'coinbaseexchange', 'coinbaseinternational',
  'coincheck', 'coinex', 'coinmate', 'coinone', 'coinsph', 'coinspot', 'cryptocom', 'cryptomus',
  'deepcoin', 'delta', 'deribit', 'derive', 'digifinex', 'dydx', 'extended', 'fmfwio', 'foxbit',
  'gate', 'gateeu', 'gemini', 'grvt', 'hashkey', 'hibachi', 'hitbtc', 'hollaex', 'htx',
  'hyperliquid', 'independentreserve', 'indodax', 'kraken', 'krakenfutures', 'kucoin',
  'kucoinfutures', 'latoken', 'lbank', 'lighter', 'luno', 'mercado', 'mexc', 'modetrade', 'mudrex',
  'myokx', 'nado', 'ndax', 'okx', 'okxus', 'onetrading', 'p2b', 'pacifica', 'paradex', 'paymium',
  'phemex', 'poloniex', 'revolutx', 'tokocrypto', 'toobit', 'upbit', 'weex', 'whitebit', 'woo',
  'woofipro', 'xt', 'zaif', 'zebpay',
]);

const KNOWN = new Set<string>([...CCXT_EXCHANGE_IDS, PAPER_EXCHANGE_ID]);

/** True for a ccxt exchange id or `paper`. Case-sensitive: ccxt ids are lower case. */
export function isKnownExchange(id: string): boolean {
  return KNOWN.has(id);
}
