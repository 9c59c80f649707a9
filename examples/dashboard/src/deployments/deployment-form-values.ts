import { parseSymbols } from '../backtests/backtest-form-values.js';
import type { ParamSpec } from '../strategies/read-strategy-meta.js';

/** The deployment form as typed. */
export interface DeploymentFormValues {
  /** A strategy id, or the id of a listing the user bought. */
  strategyId: string;
  credentialId: string;
  /** Symbols separated by commas, spaces or lines. */
  symbols: string;
  /** Strategy parameters by name; empty values are left to their defaults. */
  params: Record<string, string>;
  /** Risk limits as typed; empty ones are not set. */
  risk: RiskFormValues;
  /** Leverage as typed ('' keeps the account's); sent for perpetual symbols on an exchange account only. */
  leverage: string;
  /** Margin mode ('' keeps the account's); sent as `leverage` is. */
  marginMode: '' | 'isolated' | 'cross';
}

/** The risk limits as typed: drawdown and daily loss in percent (20 = 20 %), the others as they are sent. */
export interface RiskFormValues {
  maxDrawdownPercent: string;
  dailyLossPercent: string;
  maxPositionNotional: string;
  maxOrdersPerMinute: string;
  onBreach: 'close' | 'keep';
}

export const EMPTY_RISK: RiskFormValues = { maxDrawdownPercent: '', dailyLossPercent: '', maxPositionNotional: '', maxOrdersPerMinute: '', onBreach: 'close' };

/**
 * The `risk` of the request, or undefined when no limit is typed (no limits). Percentages become
 * fractions (20 -> 0.2); what is not a number is sent as typed, so the service names the field.
 */
export function riskBody(risk: RiskFormValues) {
  const number = (text: string, scale = 1) => {
    const t = text.trim();
    if (t === '') return undefined;
    const n = Number(t);
    return Number.isFinite(n) ? Number((n / scale).toPrecision(12)) : t;
  };
  const limits = {
    maxDrawdown: number(risk.maxDrawdownPercent, 100),
    dailyLossLimit: number(risk.dailyLossPercent, 100),
    maxPositionNotional: number(risk.maxPositionNotional),
    maxOrdersPerMinute: number(risk.maxOrdersPerMinute),
  };
  const set = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  if (Object.keys(set).length === 0) return undefined;
  return { ...set, onBreach: risk.onBreach } as {
    maxDrawdown?: number;
    dailyLossLimit?: number;
    maxPositionNotional?: number;
    maxOrdersPerMinute?: number;
    onBreach: 'close' | 'keep';
  };
}

/** A new form: BTC perpetual, the parameters' defaults, no risk limits. */
export function initialDeploymentValues(strategyId: string, credentialId: string): DeploymentFormValues {
  return { strategyId, credentialId, symbols: 'BTC/USDT:USDT', params: {}, risk: EMPTY_RISK, leverage: '', marginMode: '' };
}

/**
 * Whether the form offers leverage and margin mode: the symbols are all perpetuals
 * (`BASE/QUOTE:SETTLE`) and the account is not paper (the paper exchange's leverage is its
 * operator's setting).
 */
export function offersLeverage(symbols: string, exchange: string | undefined): boolean {
  const list = parseSymbols(symbols);
  return exchange !== 'paper' && list.length > 0 && list.every((s) => s.includes(':'));
}

/** `leverage` and `marginMode` of the request, where offered and typed; leverage not a number is sent as typed, for the service to name it. */
export function leverageBody(values: Pick<DeploymentFormValues, 'symbols' | 'leverage' | 'marginMode'>, exchange: string | undefined) {
  if (!offersLeverage(values.symbols, exchange)) return {};
  const typed = values.leverage.trim();
  const n = Number(typed);
  return {
    ...(typed === '' ? {} : { leverage: (Number.isFinite(n) ? n : typed) as number }),
    ...(values.marginMode === '' ? {} : { marginMode: values.marginMode }),
  };
}

/** The parameters' defaults as typed values ('' where there is none). */
export function paramDefaults(specs: Record<string, ParamSpec>): Record<string, string> {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, spec.default === undefined ? '' : String(spec.default)]));
}

/**
 * The body of `POST /api/deployments`; the service checks every field and answers its problems by
 * field. `exchange` is the chosen account's (leverage is sent only where `offersLeverage`).
 */
export function deploymentBody(values: DeploymentFormValues, exchange?: string) {
  return {
    strategyId: values.strategyId,
    credentialId: values.credentialId,
    symbols: parseSymbols(values.symbols),
    params: Object.fromEntries(Object.entries(values.params).filter(([, v]) => v.trim() !== '')),
    ...(riskBody(values.risk) ? { risk: riskBody(values.risk) } : {}),
    ...leverageBody(values, exchange),
  };
}

/** The credential a new deployment starts on: the first paper one (trades nothing real), else none (the user picks). */
export function defaultCredential(credentials: Array<{ id: string; exchange: string }>): string {
  return credentials.find((c) => c.exchange === 'paper')?.id ?? '';
}
