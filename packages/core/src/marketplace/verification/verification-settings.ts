import { RunFields } from '@stratbox/contract';
import { StratboxError } from '../../errors/stratbox-error.js';

/**
 * The operator's settings of verified listings (docs/verified-listings.md): how the platform
 * runs every record, and how much forward evidence earns which badge. The same for every
 * listing, so records compare; never set by a seller.
 */
export interface VerificationSettings {
  /** Evidence badge thresholds, in forward days and forward (closed) trades. */
  badge: {
    /** Below either: `insufficient` (default 90 days, 30 trades). */
    emergingDays: number;
    emergingTrades: number;
    /** From both: `established` (default 180 days, 100 trades); in between: `emerging`. */
    establishedDays: number;
    establishedTrades: number;
  };
  /** Fees of every platform run: the backtests' defaults (maker 0.0002, taker 0.0005). Never zero. */
  fees: { maker: number; taker: number };
  /** Slippage of every platform run, a fraction of price. Never zero (default 0.0005). */
  slippage: number;
  /** Pay funding on LINEAR (default true). */
  funding: boolean;
  /** The capital every record starts from: the backtests' default (10,000). */
  initialCapital: number;
  /** The platform backtest's window: this many days ending the day before listing (default 730, 2 years), or what the data has. */
  backtestDays: number;
  /** How often the verification loop runs a round (default 60,000 ms). */
  intervalMs: number;
  /**
   * The sandbox tenant of platform runs. They run as background work: only on sandbox children no
   * user's run may take, so a user's run never waits behind one (docs/engine.md, "The sandbox pool").
   */
  tenant: string;
  /** Records read from the store at a time by the loop (default 500). */
  pageSize: number;
  /** Sandbox runs the loop has in flight at once (default 4). */
  concurrency: number;
}

export type VerificationSettingsInput = Partial<Omit<VerificationSettings, 'badge' | 'fees'>> & {
  badge?: Partial<VerificationSettings['badge']>;
  fees?: Partial<VerificationSettings['fees']>;
};

/** The backtests' default fees and capital, as the contract declares them (a backtest body that leaves them out). */
const BACKTEST_FEES = RunFields.fees.parse(undefined);
const BACKTEST_CAPITAL = RunFields.initialCapital.parse(undefined);

/**
 * The defaults. Fees and capital are the backtests' defaults; the backtests' default slippage is
 * 0, which a verification never uses: 0.0005 (5 basis points, a taker fee's worth) instead.
 */
export const DEFAULT_VERIFICATION_SETTINGS: Readonly<VerificationSettings> = Object.freeze({
  badge: Object.freeze({ emergingDays: 90, emergingTrades: 30, establishedDays: 180, establishedTrades: 100 }),
  fees: Object.freeze({ ...BACKTEST_FEES }),
  slippage: 0.0005,
  funding: true,
  initialCapital: BACKTEST_CAPITAL,
  backtestDays: 730,
  intervalMs: 60_000,
  tenant: 'platform:verification',
  pageSize: 500,
  concurrency: 4,
});

function invalid(path: string, message: string): StratboxError {
  return new StratboxError('VALIDATION_FAILED', `Invalid verification setting ${path}: ${message}`, [{ path: `verification.${path}`, message }]);
}

/**
 * The settings with the defaults filled in. Throws VALIDATION_FAILED for zero or negative costs
 * (a verified record never runs without fees and slippage), thresholds out of order, or a
 * non-positive capital, window, interval, page size or concurrency.
 */
export function resolveVerificationSettings(input: VerificationSettingsInput = {}): VerificationSettings {
  const d = DEFAULT_VERIFICATION_SETTINGS;
  const s: VerificationSettings = {
    ...d,
    ...input,
    badge: { ...d.badge, ...input.badge },
    fees: { ...d.fees, ...input.fees },
  };
  const positive = (path: string, v: number) => {
    if (!(Number.isFinite(v) && v > 0)) throw invalid(path, 'must be a number above 0');
  };
  positive('fees.taker', s.fees.taker);
  if (!(Number.isFinite(s.fees.maker) && s.fees.maker > 0)) throw invalid('fees.maker', 'must be above 0: verified records never run without fees');
  if (s.fees.taker > 0.1 || s.fees.maker > 0.1) throw invalid('fees', 'at most 0.1');
  positive('slippage', s.slippage);
  if (s.slippage > 0.1) throw invalid('slippage', 'at most 0.1');
  positive('initialCapital', s.initialCapital);
  positive('backtestDays', s.backtestDays);
  positive('intervalMs', s.intervalMs);
  positive('pageSize', s.pageSize);
  positive('concurrency', s.concurrency);
  for (const [k, v] of Object.entries(s.badge)) if (!(Number.isFinite(v) && v >= 0)) throw invalid(`badge.${k}`, 'must be a number of at least 0');
  if (s.badge.establishedDays < s.badge.emergingDays || s.badge.establishedTrades < s.badge.emergingTrades) {
    throw invalid('badge', 'the established thresholds must be at least the emerging ones');
  }
  if (typeof s.tenant !== 'string' || s.tenant.length === 0) throw invalid('tenant', 'must be a non-empty string');
  return s;
}
