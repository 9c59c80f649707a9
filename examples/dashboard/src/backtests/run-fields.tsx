import type { StrategySummary } from '@stratbox/client';
import { StrategyField } from '../marketplace/strategy-options.js';
import type { BoughtListing } from '../marketplace/use-bought-listings.js';
import type { StrategyMetaView } from '../strategies/read-strategy-meta.js';
import type { BacktestFormValues } from './backtest-form-values.js';
import { FormField } from '../ui/form-field.js';

/** The fields that an input holds as typed. */
type TextKey = 'symbols' | 'startDate' | 'endDate' | 'makerFee' | 'takerFee' | 'leverage' | 'slippage' | 'initialCapital';

const TIMEFRAMES = ['1m', '5m', '15m', '30m', '1h', '4h', '1d'];

interface RunFieldsProps {
  strategies: StrategySummary[];
  /** Listings the user bought: run by listing id, their source never read. */
  bought: BoughtListing[];
  values: BacktestFormValues;
  onChange(values: BacktestFormValues): void;
  /** What the page read of the chosen strategy's meta; null while it loads. */
  meta: StrategyMetaView | null;
  /** The service's problems by field path (`startDate`, `fees.maker`). */
  errors: Record<string, string[]>;
}

/**
 * What every run takes, as two fieldsets: the strategy (own or bought), symbols, range,
 * timeframe and market, then capital, leverage, fees, slippage and funding. The backtest and
 * optimization forms both start with it; the strategy's parameters are each form's own.
 */
export function RunFields({ strategies, bought, values, onChange, meta, errors: fields }: RunFieldsProps) {
  const set = <K extends keyof BacktestFormValues>(key: K, value: BacktestFormValues[K]) => onChange({ ...values, [key]: value });
  const text =
    (id: string, key: TextKey, extra: Record<string, unknown> = {}) =>
    (describedBy: string | undefined, invalid: boolean) => (
      <input id={id} value={values[key]} onChange={(e) => set(key, e.target.value)} aria-describedby={describedBy} aria-invalid={invalid} {...extra} />
    );
  const decimal = { type: 'number', inputMode: 'decimal', step: 'any' };

  return (
    <>
      <fieldset>
        <legend>What to test</legend>
        <div className="form-grid">
          <StrategyField
            id="bt-strategy"
            strategies={strategies}
            bought={bought}
            value={values.strategyId}
            onChange={(v) => set('strategyId', v)}
            errors={fields.strategyId}
          />
          <FormField id="bt-symbols" label="Symbols" hint="ccxt symbols, separated by commas or spaces: BTC/USDT:USDT ETH/USDT:USDT" errors={fields.symbols}>
            {text('bt-symbols', 'symbols', { spellCheck: false, autoCapitalize: 'characters' })}
          </FormField>
          <FormField id="bt-start" label="From" errors={fields.startDate}>
            {text('bt-start', 'startDate', { type: 'date' })}
          </FormField>
          <FormField id="bt-end" label="To (inclusive)" errors={fields.endDate}>
            {text('bt-end', 'endDate', { type: 'date' })}
          </FormField>
          <FormField id="bt-timeframe" label="Timeframe" errors={fields.timeframe}>
            {(describedBy) => (
              <select id="bt-timeframe" value={values.timeframe} onChange={(e) => set('timeframe', e.target.value)} aria-describedby={describedBy}>
                <option value="">The strategy's ({meta?.timeframe ?? '1h'})</option>
                {TIMEFRAMES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField id="bt-market" label="Market" errors={fields.marketType}>
            {(describedBy) => (
              <select id="bt-market" value={values.marketType} onChange={(e) => set('marketType', e.target.value)} aria-describedby={describedBy}>
                <option value="">The strategy's</option>
                <option value="LINEAR">Perpetual (LINEAR)</option>
                <option value="SPOT">Spot</option>
              </select>
            )}
          </FormField>
        </div>
      </fieldset>
      <fieldset>
        <legend>Account and costs</legend>
        <div className="form-grid">
          <FormField id="bt-capital" label="Initial capital" errors={fields.initialCapital}>
            {text('bt-capital', 'initialCapital', { ...decimal, min: 0 })}
          </FormField>
          <FormField id="bt-leverage" label="Leverage" hint="1 to 125; spot runs at 1" errors={fields.leverage}>
            {text('bt-leverage', 'leverage', { ...decimal, min: 1, max: 125 })}
          </FormField>
          <FormField id="bt-maker" label="Maker fee" hint="Fraction of notional: 0.0002 is 0.02%" errors={fields['fees.maker'] ?? fields.fees}>
            {text('bt-maker', 'makerFee', { ...decimal, min: -0.01, max: 0.1 })}
          </FormField>
          <FormField id="bt-taker" label="Taker fee" hint="Fraction of notional: 0.0005 is 0.05%" errors={fields['fees.taker']}>
            {text('bt-taker', 'takerFee', { ...decimal, min: 0, max: 0.1 })}
          </FormField>
          <FormField id="bt-slippage" label="Slippage" hint="Fraction of price, 0 to 0.1" errors={fields.slippage}>
            {text('bt-slippage', 'slippage', { ...decimal, min: 0, max: 0.1 })}
          </FormField>
          <div className="field checkbox-field">
            <input id="bt-funding" type="checkbox" checked={values.funding} onChange={(e) => set('funding', e.target.checked)} />
            <label htmlFor="bt-funding">Pay funding (perpetuals)</label>
          </div>
        </div>
      </fieldset>
    </>
  );
}
