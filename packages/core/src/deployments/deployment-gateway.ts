import type { CredentialService } from '../credentials/credential-service.js';
import type { ExchangeClientPool } from '../exchanges/exchange-client-pool.js';
import { marketTypeOfSymbols } from '../exchanges/market-symbol.js';
import type { DeploymentRecord } from '../ports/store.js';
import type { LeasedGateway } from './deployment-runner.js';

export interface DeploymentGatewaysDeps {
  credentials: CredentialService;
  exchanges: ExchangeClientPool;
}

/**
 * Leases the exchange gateway of a deployment's credential from the client pool (one shared
 * client per credential and market type; the market type is the one its symbols share). The
 * lease's `release` may be called any number of times; only the first gives the client back.
 */
export function createDeploymentGateways(deps: DeploymentGatewaysDeps): (deployment: DeploymentRecord) => Promise<LeasedGateway> {
  return async function acquireGateway(deployment) {
    const credential = await deps.credentials.openSecrets(deployment.userId, deployment.credentialId);
    const gateway = await deps.exchanges.acquire(credential, marketTypeOfSymbols(deployment.symbols) ?? 'SPOT');
    let released = false;
    return {
      gateway,
      release() {
        if (released) return;
        released = true;
        deps.exchanges.release(credential.id);
      },
    };
  };
}
