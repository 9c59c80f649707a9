import type { StrategySummary } from '@stratbox/client';
import { FormField } from '../ui/form-field.js';
import type { BoughtListing } from './use-bought-listings.js';

/**
 * The `<option>`s of a "which strategy" select: the user's own strategies, then the listings
 * they bought (valued by listing id, which the API accepts wherever it takes a strategy id).
 */
function StrategyOptions({ strategies, bought }: { strategies: StrategySummary[]; bought: BoughtListing[] }) {
  return (
    <>
      {strategies.length > 0 ? (
        <optgroup label="My strategies">
          {strategies.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} (v{s.version})
            </option>
          ))}
        </optgroup>
      ) : null}
      {bought.length > 0 ? (
        <optgroup label="Bought on the marketplace">
          {bought.map((b) => (
            <option key={b.listingId} value={b.listingId}>
              {b.name} (v{b.strategyVersion}, run-only)
            </option>
          ))}
        </optgroup>
      ) : null}
    </>
  );
}

interface StrategyFieldProps {
  id: string;
  strategies: StrategySummary[];
  bought: BoughtListing[];
  value: string;
  onChange(value: string): void;
  /** The service's problems with `strategyId`. */
  errors: string[] | undefined;
}

/** The "Strategy" select of the backtest and deployment forms: own strategies and bought listings. */
export function StrategyField({ id, strategies, bought, value, onChange, errors }: StrategyFieldProps) {
  return (
    <FormField id={id} label="Strategy" errors={errors}>
      {(describedBy, invalid) => (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={describedBy} aria-invalid={invalid}>
          <option value="">Choose a strategy…</option>
          <StrategyOptions strategies={strategies} bought={bought} />
        </select>
      )}
    </FormField>
  );
}

/** True for a listing id: a bought strategy, whose source (and so its `meta`) the page cannot read. */
export function isListingId(id: string): boolean {
  return id.startsWith('lst_');
}
