import { describe, expect, it } from 'vitest';
import {
  badgeMeaning,
  buyersSentence,
  type CheckedClaim,
  describeClaims,
  evidenceFilters,
  formatDays,
  searchEffortSentence,
  verifiedLabel,
} from './record-values.js';

const T = { emergingDays: 90, emergingTrades: 30, establishedDays: 180, establishedTrades: 100 };
const claim = (text: string, verified: number | null, kind: CheckedClaim['kind'] = 'return'): CheckedClaim => ({ text, kind, claimed: 3, verified });

describe('the record as the listing page words it', () => {
  it('marks every claim where the description states it, whitespace as written', () => {
    const description = 'Trend follower.\n+300 %   in backtests! Max drawdown 5 %.';
    const claims = [claim('+300 % in backtests', -0.061), claim('Max drawdown 5 %', 0.2, 'drawdown')];
    const { parts, unplaced } = describeClaims(description, claims);
    expect(unplaced).toEqual([]);
    expect(parts.map((p) => p.text).join('')).toBe(description);
    expect(parts.filter((p) => p.claim).map((p) => p.text)).toEqual(['+300 %   in backtests', 'Max drawdown 5 %']);
  });

  it('keeps a claim whose words it cannot find, to show below the description', () => {
    const { parts, unplaced } = describeClaims('Nothing here', [claim('+300 %', 0.1)]);
    expect(parts).toEqual([{ text: 'Nothing here' }]);
    expect(unplaced).toHaveLength(1);
  });

  it('puts the verified figure beside a claim, or says why there is none', () => {
    expect(verifiedLabel(claim('+300 %', -0.061), 'ready')).toBe('verified: -6.10%');
    expect(verifiedLabel(claim('Sharpe 3', 0.456, 'sharpe'), 'ready')).toBe('verified: 0.46');
    expect(verifiedLabel(claim('+300 %', null), 'pending')).toMatch(/^not verified yet/);
    expect(verifiedLabel(claim('+300 %', null), 'failed')).toMatch(/^not verifiable/);
  });

  it('explains a badge with the forward days and trades against the thresholds', () => {
    expect(badgeMeaning('insufficient', 0.25, 1, T)).toBe(
      '6 hours and 1 trade of forward record: too little to judge. A record is emerging from 90 days and 30 trades, established from 180 days and 100 trades.',
    );
    expect(badgeMeaning('emerging', 120, 40, T)).toMatch(/^120 days and 40 trades .*not yet the 180 days and 100 trades/);
    expect([formatDays(0.01), formatDays(1), formatDays(2.55), formatDays(180.9)]).toEqual(['under an hour', '1 day', '2.5 days', '180 days']);
  });

  it("words the buyers' outcome beside the forward record", () => {
    expect(buyersSentence({ count: 3, medianReturn: 0.0123, forwardReturnSameDays: -0.004 })).toMatch(
      /^Buyers’ median return since purchase: 1\.23\s?% \(3 buyers\) — forward record over the same days: -0\.4\d*\s?%$/,
    );
    expect(buyersSentence({ count: 3, medianReturn: 0, forwardReturnSameDays: null })).toContain('over the same days: –');
  });

  it('words the search effort', () => {
    expect(searchEffortSentence({ backtests: 1, trials: 499, total: 500 })).toBe(
      'The seller ran 1 backtest and 499 optimization trials on this strategy before listing it.',
    );
  });

  it('passes only meaningful evidence filters to search', () => {
    expect(evidenceFilters('insufficient', '')).toEqual({});
    expect(evidenceFilters('emerging', '30')).toEqual({ minBadge: 'emerging', minForwardDays: 30 });
    expect(evidenceFilters('', 'ten')).toEqual({});
  });
});
