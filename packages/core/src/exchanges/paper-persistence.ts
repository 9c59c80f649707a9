import type { Clock } from '../ports/clock.js';
import { ExchangeGatewayError } from '../ports/exchange-gateway.js';
import type { StoreRepositories } from '../ports/store.js';
import { PAPER_EXCHANGE_ID } from './ccxt-exchanges.js';
import type { PaperAccount, PaperAccountState } from './paper-account.js';
import { type PaperState, paperStateText, resetPaperState, restorePaperState } from './paper-state.js';

/*
 * Where a paper account is kept between operations. With a `PaperPersistence`, every operation
 * starts from the saved state if another process saved a newer one, and saves what it changed
 * with a compare-and-set on the version; when another process saved first, the operation runs
 * again on that state (the paper exchange has no effect outside its state, so running an
 * operation again is safe). So a paper account survives restarts and is one account for every
 * process trading on it.
 */

/** A paper account's saved state, as `PaperAccountRepository` keeps it for one (credential, market type). */
export interface PaperPersistence {
  /** The saved state and its version, or null if it was never saved. */
  load(): Promise<{ state: string; version: number } | null>;
  /** Saves `state` as version `version + 1` only if the saved version is still `version` (0: none); false otherwise. */
  save(state: string, version: number): Promise<boolean>;
}

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

/** Keeps one `PaperState` in step with its saved copy. */
export interface PaperStateSync {
  /** Takes the saved state if it is not the one held here (another process saved, or a save failed here). Throws `unavailable` when it cannot be read. */
  refresh(): Promise<void>;
  /**
   * Saves the state if it changed since it was read: true when saved (or unchanged), false when
   * another process saved first. Throws `unavailable` when the save failed: what the operation
   * did is then not kept, and the next one starts again from the saved state.
   */
  save(): Promise<boolean>;
}

export function createPaperStateSync(
  persistence: PaperPersistence,
  state: PaperState,
  newAccount: (saved?: PaperAccountState) => PaperAccount,
): PaperStateSync {
  /** The version of the saved state held here, and its text (0 and '' before the first save; -1 after a failed save). */
  let version = 0;
  let savedText = '';
  const unavailable = (message: string) => new ExchangeGatewayError(PAPER_EXCHANGE_ID, 'unavailable', message);
  return {
    async refresh() {
      let saved: { state: string; version: number } | null;
      try {
        saved = await persistence.load();
      } catch {
        throw unavailable('paper: the account could not be read; nothing was done, try again');
      }
      if (saved === null) {
        if (version === 0) return;
        resetPaperState(state, newAccount());
        version = 0;
        savedText = '';
      } else if (saved.version !== version) {
        try {
          restorePaperState(state, saved.state, newAccount);
        } catch {
          throw unavailable('paper: the account could not be read; nothing was done, try again');
        }
        version = saved.version;
        savedText = saved.state;
      }
    },

    async save() {
      const text = paperStateText(state);
      if (text === savedText) return true;
      let saved: boolean;
      try {
        saved = await persistence.save(text, version);
      } catch {
        version = -1;
        throw unavailable('paper: the account could not be saved; nothing was done, try again');
      }
      if (!saved) return false;
      version++;
      savedText = text;
      return true;
    },
  };
}
