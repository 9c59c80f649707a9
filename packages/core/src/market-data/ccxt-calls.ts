import type { Exchange } from 'ccxt';
import { asCcxt, type CcxtExchange } from '../exchanges/ccxt-exchange.js';
import { StratboxError, isStratboxError } from '../errors/stratbox-error.js';
import { errorClassNames } from '../exchanges/ccxt-errors.js';
import type { Logger } from '../ports/logger.js';

/*
 * Calls to one ccxt exchange for market data (candles and funding rates): the instance, made
 * once from what the host gave, and each call retried on temporary failures, its final failure
 * mapped to a StratboxError. ccxt is only a type import here.
 */

export interface CcxtCallOptions {
  /** A ccxt exchange instance (with `enableRateLimit: true`, ccxt's default), or a factory of one. */
  exchange: CcxtExchange | (() => CcxtExchange | Promise<CcxtExchange>);
  /** Tries per call when ccxt reports a network problem, timeout or rate limit. Default 4. */
  maxAttempts?: number;
  /** First pause before a retry; doubled at each further try. Default 1000 ms. */
  retryDelayMs?: number;
  logger?: Logger;
}

/** What a call is about, for messages: the symbol and how to name the data (`BTC/USDT:USDT 1h`, `BTC/USDT:USDT funding rates`). */
export interface CallSubject {
  symbol: string;
  label: string;
}

/**
 * The ccxt error class (by name) worth another try: `OperationFailed`, ccxt's branch of
 * temporary failures: every `NetworkError` (`RequestTimeout`, `RateLimitExceeded`,
 * `DDoSProtection`, `ExchangeNotAvailable`, ...) and the exchange's own "try again" answers
 * (Binance's -1000/-1001). `ExchangeError`s (bad symbol, bad request, ...) are final.
 */
const RETRYABLE = 'OperationFailed';

function isCcxtError(names: Set<string>): boolean {
  return names.has('BaseError') || names.has('ExchangeError') || names.has('OperationFailed');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface CcxtCaller {
  /** The exchange instance (made on first use; a factory that failed is called again next time). */
  exchange(): Promise<Exchange>;
  /**
   * Runs `call`, retrying retryable ccxt errors with exponential backoff; a bad symbol is
   * NOT_FOUND, a failure that persists or a refusal is UNAVAILABLE. StratboxErrors and errors
   * that are not ccxt's pass through unchanged.
   */
  withRetry<T>(ex: Exchange, what: string, subject: CallSubject, call: (attempt: number) => Promise<T>): Promise<T>;
}

export function createCcxtCaller(options: CcxtCallOptions): CcxtCaller {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const retryDelayMs = options.retryDelayMs ?? 1000;
  let exchangePromise: Promise<Exchange> | undefined;

  return {
    exchange() {
      if (!exchangePromise) {
        const given = options.exchange;
        exchangePromise = Promise.resolve(typeof given === 'function' ? given() : given).then(asCcxt);
        exchangePromise.catch(() => (exchangePromise = undefined));
      }
      return exchangePromise;
    },

    async withRetry(ex, what, subject, call) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await call(attempt);
        } catch (error) {
          if (isStratboxError(error)) throw error;
          const names = errorClassNames(error);
          if (!isCcxtError(names)) throw error;
          if (names.has('BadSymbol')) {
            throw new StratboxError(
              'NOT_FOUND',
              `Unknown symbol ${subject.symbol} on ${ex.id}`,
              { symbol: subject.symbol, source: `ccxt:${ex.id}` },
              { cause: error },
            );
          }
          const className = error instanceof Error ? error.name : 'Error';
          if (names.has(RETRYABLE) && attempt < maxAttempts) {
            const delay = retryDelayMs * 2 ** (attempt - 1);
            options.logger?.warn('Exchange call failed; retrying', { exchange: ex.id, call: what, error: className, attempt, delayMs: delay });
            await sleep(delay);
            continue;
          }
          if (names.has(RETRYABLE)) {
            throw new StratboxError(
              'UNAVAILABLE',
              `${ex.id} is unavailable: ${what} for ${subject.label} failed ${attempt} times (${className}); try again later`,
              undefined,
              { cause: error },
            );
          }
          throw new StratboxError('UNAVAILABLE', `${ex.id} refused ${what} for ${subject.label} (${className})`, undefined, { cause: error });
        }
      }
    },
  };
}

/** Runs `work` after the running one of the same key, if any: one download at a time per key, so concurrent requests share the cache. */
export function createKeyedLocks() {
  const locks = new Map<string, Promise<unknown>>();
  return function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = locks.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    locks.set(key, settled);
    void settled.then(() => {
      if (locks.get(key) === settled) locks.delete(key);
    });
    return run;
  };
}
