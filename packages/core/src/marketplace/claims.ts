import type { z } from 'zod';
import type { CheckedClaim, RecordMetrics } from '@stratbox/contract';

export type CheckedClaimView = z.infer<typeof CheckedClaim>;
export type ClaimKind = CheckedClaimView['kind'];

/** A performance figure found in a description, before it is checked. */
export interface FoundClaim {
  /** The words that state it, as written (whitespace collapsed). */
  text: string;
  kind: ClaimKind;
  /** Returns and drawdowns as fractions (300 % is 3), as the verified metrics are; a Sharpe ratio as written. */
  claimed: number;
  /** Where `text` starts in the description. */
  index: number;
}

// A number: 300, +300, -6.1, 1,200.5, 3,1 is not accepted (ambiguous). A percent sign may follow a space.
const NUM = String.raw`([+\-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[+\-−]?\d+(?:\.\d+)?)`;
const PCT = String.raw`${NUM}\s?%`;
/** Between a keyword and its figure: a colon or the like, and at most three short words ("of", "is", "up to", "about"...). */
const LINK = String.raw`\s*[:=~≈>≥]{0,2}\s*(?:(?:of|is|was|at|by|about|around|approx\.?|approximately|up|to|over|nearly|almost|only|under|below|just|a|an|with|than|less|more|~|≈)\s+){0,3}`;

const RETURN_WORDS = String.raw`(?:returns?|returned|gains?|gained|profits?|profited|roi|cagr|growth|grew|made|yield(?:ed|s)?|earn(?:ed|s)?|performance|pnl|p&l)`;
const RETURN_AFTER = String.raw`(?:returns?|gains?|profits?|roi|cagr|growth|yield|per\s+(?:year|month|annum)|a\s+(?:year|month)|annual(?:ly|ized)?|yearly|monthly|apy|apr|in\s+(?:backtests?|backtesting|testing|(?:the\s+)?(?:last|past)\s+\w+|\d{4}|(?:one|a|\d+|two|three|six|twelve)\s+(?:months?|years?|days?|weeks?))|since|ytd)`;
const DD_WORDS = String.raw`(?:max(?:imum)?\.?\s+draw\s?-?downs?|draw\s?-?downs?|max\.?\s*dd|mdd|dd)`;
const SHARPE = String.raw`sharpe(?:\s+ratio)?`;

interface Pattern {
  kind: ClaimKind;
  regex: RegExp;
  /** Which capture group holds the number. */
  group: number;
}

const flags = 'giu';
const B = String.raw`(?<![\p{L}\p{N}_])`; // no letter or digit before
const E = String.raw`(?![\p{L}\p{N}_])`; // no letter or digit after

const PATTERNS: Pattern[] = [
  // drawdowns first: "max drawdown 5%", "DD 5 %", "drawdown of 5%", "5% max drawdown"
  { kind: 'drawdown', regex: new RegExp(`${B}${DD_WORDS}${LINK}${PCT}`, flags), group: 1 },
  { kind: 'drawdown', regex: new RegExp(`${B}${PCT}${LINK}(?:max(?:imum)?\\.?\\s+)?(?:draw\\s?-?downs?|dd|mdd)${E}`, flags), group: 1 },
  // Sharpe: "Sharpe 3.1", "Sharpe ratio of 3.1", "3.1 Sharpe"
  { kind: 'sharpe', regex: new RegExp(`${B}${SHARPE}${LINK}${NUM}(?![\\p{L}\\p{N}_%])`, flags), group: 1 },
  { kind: 'sharpe', regex: new RegExp(`${B}${NUM}\\s+${SHARPE}${E}`, flags), group: 1 },
  // returns: "returned 45%", "return of 45%", "ROI 120%"
  { kind: 'return', regex: new RegExp(`${B}${RETURN_WORDS}${LINK}${PCT}`, flags), group: 1 },
  // "300% return", "45 % per year", "+300 % in backtests"
  { kind: 'return', regex: new RegExp(`${B}${PCT}\\s*(?:(?:total|net|annual|yearly|monthly|average|avg\\.?)\\s+)?${RETURN_AFTER}${E}`, flags), group: 1 },
  // a signed percent alone ("+300 %!"): a sign is a performance figure
  { kind: 'return', regex: new RegExp(`(?<![\\p{L}\\p{N}_.,])([+]\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|[+]\\d+(?:\\.\\d+)?)\\s?%`, flags), group: 1 },
];

function parseNumber(text: string): number {
  return Number(text.replace(/,/g, '').replace('−', '-'));
}

/**
 * The return, drawdown and Sharpe figures a description states, in the order they appear,
 * each once. A figure counts only next to a word that makes it a performance claim ("returned
 * 45 %", "300 % return", "max drawdown 5 %", "DD 5 %", "Sharpe 3.1") or, for a return, with an
 * explicit plus sign ("+300 %"); version numbers ("v2"), years ("2024"), counts ("5 tags") and
 * percentages of other things ("risk 2 % per trade", "win rate 60 %") do not.
 */
export function findClaims(description: string): FoundClaim[] {
  const found: FoundClaim[] = [];
  const taken: Array<[number, number]> = [];
  const overlaps = (start: number, end: number) => taken.some(([s, e]) => start < e && end > s);
  for (const pattern of PATTERNS) {
    for (const match of description.matchAll(pattern.regex)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (overlaps(start, end)) continue;
      const value = parseNumber(match[pattern.group]!);
      if (!Number.isFinite(value)) continue;
      const claimed = pattern.kind === 'sharpe' ? value : pattern.kind === 'drawdown' ? Math.abs(value) / 100 : value / 100;
      taken.push([start, end]);
      found.push({ text: match[0].replace(/\s+/g, ' ').trim(), kind: pattern.kind, claimed, index: start });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

/**
 * The claims of a description checked against the platform's figures: each beside the verified
 * figure of the same kind (the platform backtest's total return, max drawdown or Sharpe), or
 * null while the record is pending or the figure is undefined.
 */
export function checkClaims(description: string, verified: Pick<RecordMetrics, 'totalReturn' | 'maxDrawdown' | 'sharpe'> | null): CheckedClaimView[] {
  return findClaims(description).map(({ text, kind, claimed }) => ({
    text,
    kind,
    claimed,
    verified: verified === null ? null : kind === 'return' ? verified.totalReturn : kind === 'drawdown' ? verified.maxDrawdown : verified.sharpe,
  }));
}
