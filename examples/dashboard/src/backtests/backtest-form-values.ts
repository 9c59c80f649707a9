import type { ParamSpec } from '../strategies/read-strategy-meta.js';

/** The backtest form as typed: every field a string, as inputs hold them. */
export interface BacktestFormValues {
  strategyId: string;
  /** Symbols separated by commas, spaces or lines. */
  symbols: string;
  startDate: string;
  endDate: string;
  /** Empty: the strategy's `meta.timeframe` (else 1h). */
  timeframe: string;
  /** Empty: the strategy's market type. */
  marketType: string;
  makerFee: string;
  takerFee: string;
  leverage: string;
  slippage: string;
  initialCapital: string;
  funding: boolean;
  /** Strategy parameters by name; empty values are left to their defaults. */
  params: Record<string, string>;
}

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A new form: the 90 days to yesterday (UTC), the API's defaults, the parameters' defaults. */
export function initialBacktestValues(strategyId: string, params: Record<string, ParamSpec>, now = Date.now()): BacktestFormValues {
  const end = Math.floor(now / DAY) * DAY - DAY;
  return {
    strategyId,
    symbols: 'BTC/USDT:USDT',
    startDate: isoDay(end - 89 * DAY),
    endDate: isoDay(end),
    timeframe: '',
    marketType: '',
    makerFee: '0.0002',
    takerFee: '0.0005',
    leverage: '1',
    slippage: '0',
    initialCapital: '10000',
    funding: true,
    params: Object.fromEntries(Object.entries(params).map(([name, spec]) => [name, spec.default === undefined ? '' : String(spec.default)])),
  };
}

/** The symbols of the field, upper-cased (ccxt unified symbols are). */
export function parseSymbols(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
}

/** A number field: empty is left out (the API's default applies); anything else is sent as typed, for the service to check. */
function number(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

/**
 * The body of `POST /api/backtests` for the form. Nothing is checked here: the service checks
 * every field and its problems come back next to the fields (`details`).
 */
export function backtestBody(values: BacktestFormValues) {
  const maker = number(values.makerFee);
  const taker = number(values.takerFee);
  const optional = {
    leverage: number(values.leverage),
    slippage: number(values.slippage),
    initialCapital: number(values.initialCapital),
  };
  return {
    strategyId: values.strategyId,
    symbols: parseSymbols(values.symbols),
    startDate: values.startDate,
    endDate: values.endDate,
    ...(values.timeframe ? { timeframe: values.timeframe as '1h' } : {}),
    ...(values.marketType ? { marketType: values.marketType as 'LINEAR' } : {}),
    ...(maker !== undefined || taker !== undefined ? { fees: { maker: maker ?? 0.0002, taker: taker ?? 0.0005 } } : {}),
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    funding: values.funding,
    params: Object.fromEntries(Object.entries(values.params).filter(([, v]) => v.trim() !== '')),
  };
}
