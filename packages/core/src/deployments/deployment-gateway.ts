import type { CredentialService } from '../credentials/credential-service.js';
import type { ExchangeClientPool } from '../exchanges/exchange-client-pool.js';
import { marketTypeOfSymbols } from '../exchanges/market-symbol.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { LeasedGateway } from './deployment-runner.js';
import { deploymentSpotGateway } from './spot-positions.js';

export interface DeploymentGatewaysDeps {
  credentials: CredentialService;
  exchanges: ExchangeClientPool;
  /** The deployments' orders, from which a spot deployment's position is derived (spot-positions.ts). */
  store: Store;
}

/**
 * Leases the exchange gateway of a deployment's credential from the client pool (one shared
 * client per credential and market type; the market type is the one its symbols share). The
 * lease's `release` may be called any number of times; only the first gives the client back.
 * A spot deployment's gateway has positions: what its own fills bought, never the account's other
 * coins (spot-positions.ts).
 */
export function createDeploymentGateways(deps: DeploymentGatewaysDeps): (deployment: DeploymentRecord) => Promise<LeasedGateway> {
  return async function acquireGateway(deployment) {
    const credential = await deps.credentials.openSecrets(deployment.userId, deployment.credentialId);
    const marketType = marketTypeOfSymbols(deployment.symbols) ?? 'SPOT';
    const shared = await deps.exchanges.acquire(credential, marketType);
    const gateway = marketType === 'SPOT' ? deploymentSpotGateway(shared, { store: deps.store, deployment }) : shared;
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
