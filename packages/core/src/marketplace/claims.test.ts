import { describe, expect, it } from 'vitest';
import { checkClaims, findClaims } from './claims.js';

const one = (description: string) => {
  const found = findClaims(description);
  expect(found, description).toHaveLength(1);
  return found[0]!;
};

describe('findClaims', () => {
  it.each([
    ['+300 % in backtests!', 3, '+300 % in backtests'],
    ['Made for trends. +300 %!', 3, '+300 %'],
    ['A 300% return over 2 years', 3, '300% return'],
    ['It returned 45% last year', 0.45, 'returned 45%'],
    ['Return of 12.5 % since 2021', 0.125, 'Return of 12.5 %'],
    ['ROI: 120%', 1.2, 'ROI: 120%'],
    ['CAGR 30 %', 0.3, 'CAGR 30 %'],
    ['profit of about 1,200% total', 12, 'profit of about 1,200%'],
    ['45 % per year on BTC', 0.45, '45 % per year'],
    ['8% monthly', 0.08, '8% monthly'],
    ['up 50% in the last year', 0.5, '50% in the last year'],
    ['lost -6.1 % returns', -0.061, '-6.1 % returns'],
  ])('a return: %s', (description, claimed, text) => {
    const claim = one(description);
    expect(claim.kind).toBe('return');
    expect(claim.claimed).toBeCloseTo(claimed, 12);
    expect(claim.text).toBe(text);
  });

  it.each([
    ['max drawdown 5%', 0.05],
    ['Maximum drawdown of 12.5 %', 0.125],
    ['DD 5 %', 0.05],
    ['max DD: 7%', 0.07],
    ['MDD 3%', 0.03],
    ['drawdown under 10%', 0.1],
    ['only 4% max drawdown', 0.04],
    ['draw-down -8%', 0.08],
  ])('a drawdown: %s', (description, claimed) => {
    const claim = one(description);
    expect(claim.kind).toBe('drawdown');
    expect(claim.claimed).toBeCloseTo(claimed, 12);
  });

  it.each([
    ['Sharpe 3.1', 3.1],
    ['Sharpe ratio of 2', 2],
    ['sharpe: 1.75 on 1h', 1.75],
    ['Sharpe > 2', 2],
    ['a 2.4 Sharpe strategy', 2.4],
  ])('a Sharpe ratio: %s', (description, claimed) => {
    const claim = one(description);
    expect(claim.kind).toBe('sharpe');
    expect(claim.claimed).toBe(claimed);
  });

  it.each([
    'Strategy v2, tuned for 2024',
    'Comes with 5 tags and 3 indicators',
    'Uses 50% of capital per position',
    'Risk 2% per trade',
    'risk up to 2% per trade',
    'Win rate 60%',
    'Takes profit at 1.5 ATR, stop at 2 ATR',
    'Rebalances 4 times a day on BTC/USDT:USDT',
    'Version 2.3.1 (changelog: 12 fixes)',
    'A 20 % position in a trending market',
    'Leverage 3x, fees 0.04%',
    'EMA 20/50 crossover, RSI below 30%',
    'Sharpened entries since v3',
    'v2+3% fee buffer',
    'add 5% to the stop',
    '',
  ])('no claim: %s', (description) => {
    expect(findClaims(description)).toEqual([]);
  });

  it('finds every figure of a long description, each once, in order', () => {
    const found = findClaims('Strategy v2 (2024). Returned 45 % in backtests with max drawdown 5 % and Sharpe 3.1. +300 % since launch!');
    expect(found.map(({ kind, claimed }) => [kind, claimed])).toEqual([
      ['return', 0.45],
      ['drawdown', 0.05],
      ['sharpe', 3.1],
      ['return', 3],
    ]);
  });

  it('stays fast on long adversarial text', () => {
    const text = `${'return '.repeat(1000)}${' '.repeat(3000)}${'1'.repeat(2000)}`;
    const started = performance.now();
    findClaims(text);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('checkClaims', () => {
  it('puts the verified figure of the same kind beside each claim', () => {
    const claims = checkClaims('+300 % in backtests, max drawdown 5 %, Sharpe 3.1', { totalReturn: -0.061, maxDrawdown: 0.22, sharpe: -0.4 });
    expect(claims).toEqual([
      { text: '+300 % in backtests', kind: 'return', claimed: 3, verified: -0.061 },
      { text: 'max drawdown 5 %', kind: 'drawdown', claimed: 0.05, verified: 0.22 },
      { text: 'Sharpe 3.1', kind: 'sharpe', claimed: 3.1, verified: -0.4 },
    ]);
  });

  it('answers null beside each claim while the record is pending', () => {
    expect(checkClaims('returned 45%', null)).toEqual([{ text: 'returned 45%', kind: 'return', claimed: 0.45, verified: null }]);
  });
});
