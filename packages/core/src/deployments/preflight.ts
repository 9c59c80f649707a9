import { marketTypeOfSymbols } from '../exchanges/market-symbol.js';
import { ExchangeGatewayError, type ExchangeGateway, type ExchangeMarginMode, type ExchangeMarket } from '../ports/exchange-gateway.js';

/*
 * Pre-flight checks: what a deployment asks of its exchange account before its strategy opens,
 * on create and on every restart or resume, so that a bad key, a wrong symbol or a hedge-mode
 * account shows within seconds instead of at the first order (a day later on `1d`):
 *
 *   clock          the exchange's clock against this server's; over `maxClockOffsetMs` signed
 *                  requests are timed by the exchange's clock (ccxt's timeDifference), or the
 *                  deployment is refused (EXCHANGE_CLOCK_SKEW) where that cannot be done;
 *   credential     a signed private request (the balance): the key authenticates
 *                  (EXCHANGE_AUTHENTICATION);
 *   symbols        each symbol is listed, trading, and of the deployment's market type
 *                  (`BTC/USDT:USDT` a linear perpetual, `BTC/USDT` spot) (EXCHANGE_SYMBOL);
 *   limits         the precision and minimum quantity / notional of each symbol are loaded;
 *   position_mode  derivatives accounts trade in one-way mode: a hedge-mode account is switched,
 *                  or refused with how to switch it (EXCHANGE_POSITION_MODE);
 *   leverage       leverage and margin mode set as configured (EXCHANGE_LEVERAGE). Not
 *                  configured: the account's own settings are kept and nothing is changed.
 *
 * An exchange that cannot be reached fails the check with EXCHANGE_UNAVAILABLE, marked
 * `transient`. Messages say what to fix; they are built from the gateway's own error messages,
 * which never hold an exchange's answer body, a key or a secret.
 */

export type PreflightCheckName = 'clock' | 'credential' | 'symbols' | 'limits' | 'position_mode' | 'leverage';

export interface PreflightCheck {
  name: PreflightCheckName;
  ok: boolean;
  message: string;
}

export interface PreflightResult {
  ok: boolean;
  /** ISO 8601. */
  checkedAt: string;
  /** Exchange time minus this server's time, in ms; null when the exchange does not tell. */
  clockOffsetMs: number | null;
  /** The checks run, in order; the run stops at the first that fails. */
  checks: PreflightCheck[];
  /** Why the deployment must not start (the first failed check), or null. */
  failure: { code: string; message: string; transient: boolean } | null;
}

export interface PreflightSettings {
  /** Leverage to set on each symbol (derivatives only). Unset: the account's is kept. */
  leverage?: number;
  /** Margin mode to set on each symbol (derivatives only). Unset: the account's is kept. */
  marginMode?: ExchangeMarginMode;
}

export interface PreflightOptions {
  /** A clock offset beyond this many ms is corrected or refused. Default 1000 (Binance refuses timestamps 1 s ahead). */
  maxClockOffsetMs?: number;
  /** The whole run gives up after this long (EXCHANGE_UNAVAILABLE, transient). Default 15 s. */
  timeoutMs?: number;
  /** This machine's clock, the one requests are signed with. Default Date.now (not a service clock that may run fast). */
  now?: () => number;
  /** ISO 8601 of `checkedAt`. Default now(). */
  checkedAt?: string;
}

class CheckFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

const MARKET_TYPE_NAME = { LINEAR: 'a USDT-margined perpetual', SPOT: 'a spot market' } as const;

/** The market type a deployment's symbols ask for: all `BASE/QUOTE:SETTLE` is LINEAR, all `BASE/QUOTE` SPOT, a mix (or none) neither. */
export function symbolsMarketType(symbols: readonly string[]): 'LINEAR' | 'SPOT' | null {
  return marketTypeOfSymbols(symbols);
}

/** What an exchange failure in a check tells the user, by the gateway error's reason. */
function failureOf(check: PreflightCheckName, error: unknown, exchange: string): CheckFailed {
  if (error instanceof CheckFailed) return error;
  if (error instanceof ExchangeGatewayError) {
    if (error.reason === 'authentication') return new CheckFailed('EXCHANGE_AUTHENTICATION', error.message);
    if (error.transient) {
      return new CheckFailed('EXCHANGE_UNAVAILABLE', `${exchange} could not be reached for the pre-flight check "${check}": ${error.message}`, true);
    }
    return new CheckFailed(CODE_OF_CHECK[check], error.message);
  }
  // Not the gateway's own error: its text may hold anything, so none of it is shown.
  return new CheckFailed(CODE_OF_CHECK[check], `The pre-flight check "${check}" failed on ${exchange} with an unexpected error`);
}

const CODE_OF_CHECK: Record<PreflightCheckName, string> = {
  clock: 'EXCHANGE_CLOCK_SKEW',
  credential: 'EXCHANGE_AUTHENTICATION',
  symbols: 'EXCHANGE_SYMBOL',
  limits: 'EXCHANGE_SYMBOL',
  position_mode: 'EXCHANGE_POSITION_MODE',
  leverage: 'EXCHANGE_LEVERAGE',
};

const describeLimits = (m: ExchangeMarket) =>
  `${m.symbol}: amount step ${m.amountStep ?? 'unknown'}, price step ${m.priceStep ?? 'unknown'}, ` +
  `min quantity ${m.minQuantity ?? 'none'}, min notional ${m.minCost ?? 'none'}`;

/**
 * Runs the pre-flight checks of a deployment on `symbols` against `gateway`; see the file
 * comment. Never throws: a failure is in the result.
 */
export async function runPreflight(
  gateway: ExchangeGateway,
  symbols: readonly string[],
  settings: PreflightSettings = {},
  options: PreflightOptions = {},
): Promise<PreflightResult> {
  const now = options.now ?? Date.now;
  const maxOffset = options.maxClockOffsetMs ?? 1000;
  const exchange = gateway.exchangeId;
  const checks: PreflightCheck[] = [];
  let clockOffsetMs: number | null = null;

  const run = async (name: PreflightCheckName, fn: () => Promise<string>) => {
    try {
      checks.push({ name, ok: true, message: await fn() });
    } catch (error) {
      const failed = failureOf(name, error, exchange);
      checks.push({ name, ok: false, message: failed.message });
      throw failed;
    }
  };

  const all = async () => {
    await run('clock', async () => {
      if (!gateway.fetchServerTime) return `${exchange} does not report its clock; nothing to check`;
      const before = now();
      const server = await gateway.fetchServerTime();
      const after = now();
      clockOffsetMs = Math.round(server - (before + after) / 2);
      if (Math.abs(clockOffsetMs) <= maxOffset) return `This server's clock is within ${Math.abs(clockOffsetMs)} ms of ${exchange}'s`;
      const measured = clockOffsetMs;
      if (!gateway.syncClock) {
        throw new CheckFailed(
          'EXCHANGE_CLOCK_SKEW',
          `This server's clock is ${Math.abs(measured)} ms ${measured > 0 ? 'behind' : 'ahead of'} ${exchange}'s (at most ${maxOffset} ms is allowed): ` +
            'synchronise the server clock (NTP), then restart the deployment',
        );
      }
      clockOffsetMs = Math.round(await gateway.syncClock());
      return `This server's clock is ${Math.abs(measured)} ms ${measured > 0 ? 'behind' : 'ahead of'} ${exchange}'s: requests are timed by ${exchange}'s clock`;
    });

    await run('credential', async () => {
      await gateway.fetchBalance();
      return `${exchange} accepted the API key for a signed request`;
    });

    const wanted = symbolsMarketType(symbols);
    const markets: ExchangeMarket[] = [];
    await run('symbols', async () => {
      if (wanted === null) {
        throw new CheckFailed(
          'EXCHANGE_SYMBOL',
          `The symbols mix perpetuals (BASE/QUOTE:SETTLE) and spot markets (BASE/QUOTE): deploy them separately (${symbols.join(', ')})`,
        );
      }
      const type = gateway.marketType ?? wanted;
      for (const symbol of symbols) {
        let market: ExchangeMarket;
        try {
          market = await gateway.market(symbol);
        } catch (error) {
          if (error instanceof ExchangeGatewayError && error.reason === 'bad_symbol') {
            throw new CheckFailed(
              'EXCHANGE_SYMBOL',
              `${exchange} does not list ${symbol} as ${MARKET_TYPE_NAME[type]}: check the symbol's spelling and market type`,
            );
          }
          throw error;
        }
        const fits = wanted === 'LINEAR' ? market.type === 'swap' && market.linear === true : market.type === 'spot';
        if (!fits) {
          throw new CheckFailed(
            'EXCHANGE_SYMBOL',
            `${symbol} is a ${market.type} market on ${exchange}, not ${MARKET_TYPE_NAME[wanted]}: choose a matching symbol`,
          );
        }
        if (!market.active) throw new CheckFailed('EXCHANGE_SYMBOL', `${symbol} is not trading on ${exchange} (delisted or suspended): choose another symbol`);
        markets.push(market);
      }
      return `${symbols.join(', ')}: listed and trading as ${MARKET_TYPE_NAME[wanted]}`;
    });

    await run('limits', async () => markets.map(describeLimits).join('; '));

    if (wanted !== 'LINEAR') return;
    await run('position_mode', async () => {
      const first = symbols[0]!;
      if (!gateway.fetchPositionMode) return `${exchange}: no position mode to check`;
      if ((await gateway.fetchPositionMode(first)) === 'one_way') return `${exchange} account is in one-way position mode`;
      const fix = `switch the account to one-way mode in ${exchange}'s futures settings (Preferences > Position Mode; close its open positions and orders first), then restart the deployment`;
      if (!gateway.setPositionMode) throw new CheckFailed('EXCHANGE_POSITION_MODE', `The ${exchange} account is in hedge mode: ${fix}`);
      try {
        await gateway.setPositionMode('one_way', first);
      } catch (error) {
        if (error instanceof ExchangeGatewayError && error.transient) throw error;
        throw new CheckFailed('EXCHANGE_POSITION_MODE', `The ${exchange} account is in hedge mode and refused to switch to one-way mode: ${fix}`);
      }
      return `${exchange} account was in hedge mode: switched to one-way mode`;
    });

    await run('leverage', async () => {
      const done: string[] = [];
      if (settings.marginMode !== undefined) {
        if (!gateway.setMarginMode)
          throw new CheckFailed(
            'EXCHANGE_LEVERAGE',
            `${exchange} does not let Stratbox set the margin mode: set it to ${settings.marginMode} on the exchange, or leave it unset`,
          );
        for (const symbol of symbols) await gateway.setMarginMode(symbol, settings.marginMode);
        done.push(`margin mode ${settings.marginMode}`);
      }
      if (settings.leverage !== undefined) {
        if (!gateway.setLeverage)
          throw new CheckFailed(
            'EXCHANGE_LEVERAGE',
            `${exchange} does not let Stratbox set the leverage: set ${settings.leverage}x on the exchange, or leave it unset`,
          );
        for (const symbol of symbols) await gateway.setLeverage(symbol, settings.leverage);
        done.push(`leverage ${settings.leverage}x`);
      }
      return done.length > 0 ? `Set ${done.join(' and ')} on ${symbols.join(', ')}` : "Not configured: the account's leverage and margin mode are kept";
    });
  };

  let failure: PreflightResult['failure'] = null;
  const timeoutMs = options.timeoutMs ?? 15_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CheckFailed('EXCHANGE_UNAVAILABLE', `${exchange} did not answer the pre-flight checks within ${Math.round(timeoutMs / 1000)} s`, true)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([all(), deadline]);
  } catch (error) {
    const failed = failureOf(checks.at(-1)?.name ?? 'clock', error, exchange);
    failure = { code: failed.code, message: failed.message, transient: failed.transient };
  } finally {
    clearTimeout(timer);
  }
  return { ok: failure === null, checkedAt: options.checkedAt ?? new Date(now()).toISOString(), clockOffsetMs, checks, failure };
}
