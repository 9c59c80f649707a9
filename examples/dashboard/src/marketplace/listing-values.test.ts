import { describe, expect, it } from 'vitest';
import { EMPTY_LISTING, formatPrice, listingFields, listingFormValues, newListingBody, parseTags, priceCents } from './listing-values.js';

describe('listing values', () => {
  it('shows cents as dollars, and 0 as free', () => {
    expect(formatPrice(4900)).toBe('$49.00');
    expect(formatPrice(0)).toBe('Free');
  });

  it('reads dollars into cents and leaves a bad price for the service to refuse', () => {
    expect(priceCents('49.9')).toBe(4990);
    expect(priceCents(' ')).toBe(0);
    expect(priceCents('lots')).toBe(-1);
  });

  it('reads tags separated by commas or spaces, lower-cased once each', () => {
    expect(parseTags(' Trend, momentum  trend,,BTC ')).toEqual(['trend', 'momentum', 'btc']);
  });

  it('turns a listing into its form and back', () => {
    const listing = { strategyId: 'str_1', name: 'Edge', description: 'd', price: 1250, tags: ['a', 'b'] };
    const values = listingFormValues(listing);
    expect(values).toEqual({ strategyId: 'str_1', name: 'Edge', description: 'd', price: '12.50', tags: 'a, b', symbols: '', timeframe: '' });
    expect(listingFields(values)).toEqual({ name: 'Edge', description: 'd', price: 1250, tags: ['a', 'b'] });
  });

  it("sends a new listing's symbols and timeframe only when given", () => {
    const values = { ...EMPTY_LISTING, strategyId: 'str_1', name: 'Edge' };
    expect(newListingBody(values)).toEqual({ strategyId: 'str_1', name: 'Edge', description: '', price: 0, tags: [] });
    expect(newListingBody({ ...values, symbols: ' eth/usdt:usdt, BTC/USDT:USDT ', timeframe: '4h' })).toMatchObject({
      symbols: ['ETH/USDT:USDT', 'BTC/USDT:USDT'],
      timeframe: '4h',
    });
  });
});
