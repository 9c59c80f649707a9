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
}

/** A new form: BTC perpetual, the parameters' defaults. */
export function initialDeploymentValues(strategyId: string, credentialId: string): DeploymentFormValues {
  return { strategyId, credentialId, symbols: 'BTC/USDT:USDT', params: {} };
}

/** The parameters' defaults as typed values ('' where there is none). */
export function paramDefaults(specs: Record<string, ParamSpec>): Record<string, string> {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, spec.default === undefined ? '' : String(spec.default)]));
}

/** The body of `POST /api/deployments`; the service checks every field and answers its problems by field. */
export function deploymentBody(values: DeploymentFormValues) {
  return {
    strategyId: values.strategyId,
    credentialId: values.credentialId,
    symbols: parseSymbols(values.symbols),
    params: Object.fromEntries(Object.entries(values.params).filter(([, v]) => v.trim() !== '')),
  };
}

/** The credential a new deployment starts on: the first paper one (trades nothing real), else none (the user picks). */
export function defaultCredential(credentials: Array<{ id: string; exchange: string }>): string {
  return credentials.find((c) => c.exchange === 'paper')?.id ?? '';
}
