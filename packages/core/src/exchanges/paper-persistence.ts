import type { Clock } from '../ports/clock.js';
import type { StoreRepositories } from '../ports/store.js';
import type { PaperPersistence } from './paper-gateway.js';

/** Keeps the paper account of (`credentialId`, `marketType`) in the Store's `paperAccounts`. */
export function createStorePaperPersistence(
  store: Pick<StoreRepositories, 'paperAccounts'>,
  clock: Clock,
  credentialId: string,
  marketType: string,
): PaperPersistence {
  return {
    load: () => store.paperAccounts.load(credentialId, marketType),
    save: (state, version) => store.paperAccounts.save(credentialId, marketType, state, version, clock.now().toISOString()),
  };
}
