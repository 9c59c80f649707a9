import { parseSymbols } from '../backtests/backtest-form-values.js';

const usd = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' });

/** A price in USD cents as a person reads it: `$49.00`, or `Free` for 0. */
export function formatPrice(cents: number): string {
  return cents === 0 ? 'Free' : usd.format(cents / 100);
}

/** Tags separated by commas or spaces, lower-cased, without repeats (the service checks each). */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,]+/)
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/** The listing form as typed. */
export interface ListingFormValues {
  strategyId: string;
  name: string;
  description: string;
  /** US dollars, as typed: `49`, `49.90`; empty is free. */
  price: string;
  /** Separated by commas or spaces. */
  tags: string;
  /** What the platform verifies a new listing on: ccxt symbols separated by commas or spaces; empty is the market's default. */
  symbols: string;
  /** The verification's timeframe (`1h`...); empty is the strategy's declared one. */
  timeframe: string;
}

/** The timeframes a listing's record can run on (the contract's `Timeframe`). */
export const LISTING_TIMEFRAMES = ['1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;

/** An empty form for a new listing. */
export const EMPTY_LISTING: ListingFormValues = { strategyId: '', name: '', description: '', price: '', tags: '', symbols: '', timeframe: '' };

/**
 * Dollars as typed to the API's cents: `49.9` is 4990, empty is 0. What is not a number is sent
 * as NaN's stand-in -1, so the service's own message about the price shows at its field.
 */
export function priceCents(text: string): number {
  if (text.trim() === '') return 0;
  const dollars = Number(text);
  return Number.isFinite(dollars) ? Math.round(dollars * 100) : -1;
}

/** The form of an existing listing. */
export function listingFormValues(listing: { strategyId: string; name: string; description: string; price: number; tags: string[] }): ListingFormValues {
  return {
    strategyId: listing.strategyId,
    name: listing.name,
    description: listing.description,
    price: listing.price === 0 ? '' : (listing.price / 100).toFixed(2),
    tags: listing.tags.join(', '),
    symbols: '',
    timeframe: '',
  };
}

/** The fields of `POST /api/marketplace` and `PUT /api/marketplace/:id` (without the strategy, which only the first takes). */
export function listingFields(values: ListingFormValues) {
  return { name: values.name, description: values.description, price: priceCents(values.price), tags: parseTags(values.tags) };
}

/**
 * The body of `POST /api/marketplace`: the strategy, the fields above, and the symbols and
 * timeframe of the listing's record when given (left out, the service's defaults apply).
 */
export function newListingBody(values: ListingFormValues) {
  const symbols = parseSymbols(values.symbols);
  return {
    strategyId: values.strategyId,
    ...listingFields(values),
    ...(symbols.length > 0 ? { symbols } : {}),
    ...(values.timeframe ? { timeframe: values.timeframe as (typeof LISTING_TIMEFRAMES)[number] } : {}),
  };
}
