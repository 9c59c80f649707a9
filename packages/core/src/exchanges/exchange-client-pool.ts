import type { Exchange } from 'ccxt';
import { asCcxt, type CcxtExchange } from './ccxt-exchange.js';
import { createCcxtExchange } from '../market-data/ccxt-market-data.js';
import type { Clock } from '../ports/clock.js';
import type { ExchangeBans } from '../ports/exchange-bans.js';
import { ExchangeGatewayError, type ExchangeGateway } from '../ports/exchange-gateway.js';
import type { Logger } from '../ports/logger.js';
import { createCcxtGateway } from './ccxt-gateway.js';
import { PAPER_EXCHANGE_ID } from './ccxt-exchanges.js';
import { createMemoryExchangeBans } from './memory-exchange-bans.js';
import { createPaperGateway, type PaperGateway, type PaperGatewayOptions, type PaperPersistence } from './paper-gateway.js';
import { createCooldown, type Cooldown, type RetryOptions } from './retry-policy.js';

/*
 * One exchange client per credential, shared by every deployment that trades on it.
 *
 * A ccxt exchange instance carries its own rate limiter; two instances on one API key would
 * each think they have the whole allowance and together get the key banned. So the pool makes
 * one instance per credential id (with `enableRateLimit: true`), hands every deployment on that
 * credential a gateway over that one instance (one gateway per market type, also shared, with a
 * cool-down shared by all of them after a rate-limit answer), counts the leases, and drops the
 * client when the last one is released.
 *
 * 429 and 418 answers (with `Retry-After`) are kept per credential in `bans`: every gateway on
 * the credential, in this process and (with a shared implementation such as the Redis one of
 * `@stratbox/queue-bullmq`) in every other, sends no order until the ban is over.
 *
 * `paper` credentials get a paper exchange per (credential, market type). Its account (balances,
 * positions, orders) is kept for the life of the pool, even with no lease, and, with
 * `paper.persistence`, in the Store: then it survives restarts and is one account across
 * processes.
 */

/** A credential with its secrets opened (`CredentialService.openSecrets`): server-side only. */
export interface PoolCredential {
  id: string;
  /** A ccxt exchange id, or `paper`. */
  exchange: string;
  testnet: boolean;
  secrets: { apiKey: string; secret: string; password?: string };
}

export type PoolMarketType = 'LINEAR' | 'SPOT';

export interface ExchangeClientPoolOptions {
  /** Price source and settings of paper accounts. Without it, `paper` credentials cannot be used. */
  paper?: Omit<PaperGatewayOptions, 'marketType' | 'persistence'> & {
    /** Where each paper account is kept (`createStorePaperPersistence`). Default: memory only. */
    persistence?: (credentialId: string, marketType: PoolMarketType) => PaperPersistence;
  };
  /** Builds a ccxt exchange by id with the given config. Default: `createCcxtExchange` (loads ccxt on first use). */
  createExchange?: (exchangeId: string, config: Record<string, unknown>) => Promise<CcxtExchange>;
  retry?: RetryOptions;
  clock?: Clock;
  logger?: Logger;
  /** Where rate-limit bans are kept, by `<exchange>:<credential id>`. Default: this process's memory. */
  bans?: ExchangeBans;
  /** A read waits out a ban up to this long before it fails (default 30 s); orders never wait. */
  maxBanWaitMs?: number;
}

export interface ExchangeClientPool {
  /**
   * The gateway for trading on `credential` in `marketType` (default LINEAR), sharing the
   * credential's one client with every other lease. Pair every acquire with one `release`.
   */
  acquire(credential: PoolCredential, marketType?: PoolMarketType): Promise<ExchangeGateway>;
  /** Ends one lease of the credential; the last one closes its ccxt client. Extra calls are ignored. */
  release(credentialId: string): void;
  /** Credential ids with a live ccxt client, and their lease counts. */
  clients(): Array<{ credentialId: string; leases: number }>;
  /** Closes every client; later acquires fail. */
  close(): Promise<void>;
}

interface Client {
  exchange: Promise<Exchange>;
  cooldown: Cooldown;
  gateways: Map<PoolMarketType, ExchangeGateway>;
  leases: number;
}

/**
 * ccxt's pro classes reject every pending stream future when closed (`ExchangeClosedByUser`).
 * A future whose watcher already gave up (a stream closed mid-call) has no listener left, and its
 * rejection would surface as an unhandled rejection in the host process: each is given one that
 * ignores it, since nothing waits on a client being closed.
 */
function quietPendingFutures(ex: Exchange) {
  const clients = (ex as unknown as { clients?: Record<string, { futures?: Record<string, unknown> }> }).clients ?? {};
  for (const client of Object.values(clients)) {
    for (const future of Object.values(client.futures ?? {})) if (future instanceof Promise) future.catch(() => undefined);
  }
}

async function closeExchange(exchange: Promise<Exchange>) {
  try {
    const ex = await exchange;
    quietPendingFutures(ex);
    await (ex as { close?: () => Promise<unknown> }).close?.();
  } catch {
    // a client that failed to start or to close has nothing left to free
  }
}

export function createExchangeClientPool(options: ExchangeClientPoolOptions = {}): ExchangeClientPool {
  const clients = new Map<string, Client>();
  const paperAccounts = new Map<string, PaperGateway>();
  const create = options.createExchange ?? createCcxtExchange;
  const bans = options.bans ?? createMemoryExchangeBans();
  let closed = false;

  async function newExchange(credential: PoolCredential): Promise<Exchange> {
    const ex = asCcxt(
      await create(credential.exchange, {
        apiKey: credential.secrets.apiKey,
        secret: credential.secrets.secret,
        ...(credential.secrets.password === undefined ? {} : { password: credential.secrets.password }),
        enableRateLimit: true,
        // LINEAR is what deployments trade; SPOT gateways ask for spot explicitly.
        options: { defaultType: 'swap', defaultSubType: 'linear' },
      }),
    );
    if (credential.testnet) {
      if (!ex.urls['test']) throw new ExchangeGatewayError(ex.id, 'not_supported', `${ex.id} has no testnet in ccxt; use a live key or another exchange`);
      ex.setSandboxMode(true);
    }
    return ex;
  }

  function paperGateway(credential: PoolCredential, marketType: PoolMarketType): ExchangeGateway {
    if (!options.paper) throw new ExchangeGatewayError(PAPER_EXCHANGE_ID, 'not_supported', 'Paper trading is not set up on this server (no price source)');
    const key = `${credential.id}#${marketType}`;
    let gateway = paperAccounts.get(key);
    if (!gateway) {
      const { persistence, ...paper } = options.paper;
      gateway = createPaperGateway({ ...paper, marketType, ...(persistence ? { persistence: persistence(credential.id, marketType) } : {}) });
      paperAccounts.set(key, gateway);
    }
    return gateway;
  }

  return {
    async acquire(credential, marketType = 'LINEAR') {
      if (closed) throw new Error('The exchange client pool is closed');
      if (credential.exchange === PAPER_EXCHANGE_ID) return paperGateway(credential, marketType);
      let client = clients.get(credential.id);
      if (!client) {
        const exchange = newExchange(credential);
        client = { exchange, cooldown: createCooldown(), gateways: new Map(), leases: 0 };
        clients.set(credential.id, client);
        exchange.catch(() => {
          if (clients.get(credential.id) === client) clients.delete(credential.id);
        });
      }
      client.leases++;
      try {
        const exchange = await client.exchange;
        let gateway = client.gateways.get(marketType);
        if (!gateway) {
          gateway = createCcxtGateway({
            exchange,
            marketType,
            cooldown: client.cooldown,
            bans: {
              store: bans,
              accountKey: `${credential.exchange}:${credential.id}`,
              ...(options.maxBanWaitMs === undefined ? {} : { maxReadWaitMs: options.maxBanWaitMs }),
            },
            ...(options.retry ? { retry: options.retry } : {}),
            ...(options.clock ? { clock: options.clock } : {}),
            ...(options.logger ? { logger: options.logger } : {}),
          });
          client.gateways.set(marketType, gateway);
        }
        return gateway;
      } catch (error) {
        client.leases--;
        throw error;
      }
    },

    release(credentialId) {
      const client = clients.get(credentialId);
      if (!client || client.leases === 0) return;
      client.leases--;
      if (client.leases === 0) {
        clients.delete(credentialId);
        void closeExchange(client.exchange);
      }
    },

    clients() {
      return [...clients].map(([credentialId, c]) => ({ credentialId, leases: c.leases }));
    },

    async close() {
      closed = true;
      const all = [...clients.values()];
      clients.clear();
      paperAccounts.clear();
      await Promise.all(all.map((c) => closeExchange(c.exchange)));
    },
  };
}
