/** Operator settings of drift reports (docs/drift.md). */
export interface DriftSettingsInput {
  /**
   * The model the replay runs with: the fees and slippage of the platform's paper exchange
   * (default `{ maker: 0.0002, taker: 0.0005 }` and 0, the paper gateway's and the backtest's defaults).
   */
  fees?: { maker: number; taker: number };
  slippage?: number;
  /** How often the background refresh recomputes running deployments' default reports (default one day). */
  refreshIntervalMs?: number;
  /** Running deployments refreshed per page of the background refresh (default 50). */
  pageSize?: number;
}

export interface DriftSettings {
  fees: { maker: number; taker: number };
  slippage: number;
  refreshIntervalMs: number;
  pageSize: number;
}

export const DAY_MS = 86_400_000;

export function resolveDriftSettings(input: DriftSettingsInput = {}): DriftSettings {
  const settings = {
    fees: input.fees ?? { maker: 0.0002, taker: 0.0005 },
    slippage: input.slippage ?? 0,
    refreshIntervalMs: input.refreshIntervalMs ?? DAY_MS,
    pageSize: input.pageSize ?? 50,
  };
  if (!(settings.fees.maker >= 0 && settings.fees.taker >= 0)) throw new RangeError('drift.fees must be non-negative fractions');
  if (!(settings.slippage >= 0 && settings.slippage <= 0.1)) throw new RangeError('drift.slippage must be in [0, 0.1]');
  if (!(settings.refreshIntervalMs >= 1000)) throw new RangeError('drift.refreshIntervalMs must be at least 1000');
  if (!(Number.isInteger(settings.pageSize) && settings.pageSize >= 1)) throw new RangeError('drift.pageSize must be a positive integer');
  return settings;
}
