import { PAPER_EXCHANGE_ID } from '../exchanges/ccxt-exchanges.js';
import { StratboxError } from '../errors/stratbox-error.js';

/** A deployment's leverage settings as its create body gives them. */
export interface LeverageSettings {
  leverage?: number | undefined;
  marginMode?: 'isolated' | 'cross' | undefined;
}

/**
 * Refuses leverage settings a deployment cannot apply (VALIDATION_FAILED naming each field):
 * leverage and margin mode are set by the pre-flight on perpetual (`BASE/QUOTE:SETTLE`) symbols
 * only, and never on the paper exchange, whose leverage is its operator's paper setting.
 */
export function assertLeverageSettings(settings: LeverageSettings, marketType: 'LINEAR' | 'SPOT' | null, exchange: string): void {
  const fields = (['leverage', 'marginMode'] as const).filter((name) => settings[name] !== undefined);
  if (fields.length === 0) return;
  if (exchange === PAPER_EXCHANGE_ID) {
    throw new StratboxError(
      'VALIDATION_FAILED',
      "The paper exchange's leverage and margin mode are set by its operator (the server's paper settings); omit leverage and marginMode",
      fields.map((name) => ({ path: `body.${name}`, message: 'Not settable on the paper exchange' })),
    );
  }
  if (marketType !== 'LINEAR') {
    throw new StratboxError(
      'VALIDATION_FAILED',
      'Leverage and margin mode apply to perpetual symbols (BASE/QUOTE:SETTLE) only; a spot deployment trades without leverage',
      fields.map((name) => ({ path: `body.${name}`, message: 'Only for perpetual symbols' })),
    );
  }
}
