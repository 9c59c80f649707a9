import type { RouteOutput } from '@stratbox/client';
import { formatNumber, formatPercent } from '../ui/format.js';

/** `GET /api/marketplace/:id/record`: the current record, its lineage and the description's claims checked. */
export type ListingRecordDetail = RouteOutput<'marketplace.record'>;
export type VerificationRecord = NonNullable<ListingRecordDetail['current']>;
export type CheckedClaim = ListingRecordDetail['claims'][number];
export type BadgeThresholds = ListingRecordDetail['thresholds'];
export type EvidenceBadgeName = VerificationRecord['badge'];

/** The badges, weakest first (the order of the minimum-badge filter). */
export const BADGES: EvidenceBadgeName[] = ['insufficient', 'emerging', 'established'];

/** The sort keys of the marketplace, with how the select names them. */
export const SORTS = [
  { value: 'newest', label: 'Newest' },
  { value: 'forwardReturn', label: 'Forward return' },
  { value: 'forwardSharpe', label: 'Forward Sharpe' },
  { value: 'dsr', label: 'Deflated Sharpe (DSR)' },
  { value: 'forwardDays', label: 'Forward days' },
] as const;
export type SortKey = (typeof SORTS)[number]['value'];

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** Forward days as the record counts them: hours below a day (`6 hours`), one decimal below 10 days (`2.5 days`), whole above. */
export function formatDays(days: number): string {
  if (days < 1) {
    const hours = Math.floor(days * 24);
    return hours === 0 ? 'under an hour' : plural(hours, 'hour');
  }
  const shown = days < 10 ? Math.floor(days * 10) / 10 : Math.floor(days);
  return `${shown.toLocaleString('en')} ${shown === 1 ? 'day' : 'days'}`;
}

/**
 * The buyers' outcome beside the forward record:
 * "Buyers' median return since purchase: X % (n buyers) — forward record over the same days: Y %".
 */
export function buyersSentence(buyers: NonNullable<ListingRecordDetail['buyers']>): string {
  return `Buyers’ median return since purchase: ${formatPercent(buyers.medianReturn)} (${plural(buyers.count, 'buyer')}) — forward record over the same days: ${formatPercent(buyers.forwardReturnSameDays)}`;
}

/** A count with its noun, singular for one: `1 trade`, `6 trades`. */
export function countOf(n: number, one: string): string {
  return plural(n, one);
}

/**
 * What a badge means for this record: its forward days and trades against the operator's
 * thresholds, and what it still needs for the next badge.
 */
export function badgeMeaning(badge: EvidenceBadgeName, forwardDays: number, forwardTrades: number, t: BadgeThresholds): string {
  const has = `${formatDays(forwardDays)} and ${plural(forwardTrades, 'trade')} of forward record`;
  if (badge === 'insufficient') {
    return `${has}: too little to judge. A record is emerging from ${plural(t.emergingDays, 'day')} and ${plural(t.emergingTrades, 'trade')}, established from ${plural(t.establishedDays, 'day')} and ${plural(t.establishedTrades, 'trade')}.`;
  }
  if (badge === 'emerging') {
    return `${has}: past ${plural(t.emergingDays, 'day')} and ${plural(t.emergingTrades, 'trade')}, not yet the ${plural(t.establishedDays, 'day')} and ${plural(t.establishedTrades, 'trade')} of an established record.`;
  }
  return `${has}: at least ${plural(t.establishedDays, 'day')} and ${plural(t.establishedTrades, 'trade')}, the most evidence a record shows.`;
}

/** A figure of a claim's kind: returns and drawdowns as percentages, a Sharpe ratio as a number. */
export function formatFigure(kind: CheckedClaim['kind'], value: number | null): string {
  return kind === 'sharpe' ? formatNumber(value) : formatPercent(value);
}

/** The words beside a claim: the platform's figure, or why there is none yet. */
export function verifiedLabel(claim: CheckedClaim, status: VerificationRecord['status'] | null): string {
  if (claim.verified !== null) return `verified: ${formatFigure(claim.kind, claim.verified)}`;
  if (status === 'pending' || status === null) return 'not verified yet: the platform backtest is running';
  return 'not verifiable: the platform could not measure it';
}

/** A description cut into plain text and the claims it states, in order, for marking the claims where they are. */
export type DescriptionPart = { text: string; claim?: undefined } | { text: string; claim: CheckedClaim };

/**
 * `description` in parts: each claim's words (found in order; whitespace in them may be any run
 * of whitespace, as the server collapses it) become a claim part. Claims whose words are not
 * found come back in `unplaced`, to be shown below the description: never left out.
 */
export function describeClaims(description: string, claims: CheckedClaim[]): { parts: DescriptionPart[]; unplaced: CheckedClaim[] } {
  const parts: DescriptionPart[] = [];
  const unplaced: CheckedClaim[] = [];
  let from = 0;
  for (const claim of claims) {
    const pattern = new RegExp(claim.text.split(/\s+/).map(escapeRegExp).join('\\s+'), 'u');
    const match = pattern.exec(description.slice(from));
    if (!match) {
      unplaced.push(claim);
      continue;
    }
    const start = from + match.index;
    if (start > from) parts.push({ text: description.slice(from, start) });
    parts.push({ text: match[0], claim });
    from = start + match[0].length;
  }
  if (from < description.length) parts.push({ text: description.slice(from) });
  return { parts, unplaced };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The search effort as a sentence: what the seller ran on the strategy before listing it. */
export function searchEffortSentence(effort: VerificationRecord['searchEffort']): string {
  return `The seller ran ${plural(effort.backtests, 'backtest')} and ${plural(effort.trials, 'optimization trial')} on this strategy before listing it.`;
}

/** A source hash as shown: its first 12 hex digits. */
export function shortHash(sha256: string): string {
  return sha256.slice(0, 12);
}

/** A strategy's parameters as `fast=10, slow=30`; `none` when it declares none. */
export function formatParams(params: Record<string, unknown>): string {
  const entries = Object.entries(params);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k}=${String(v)}`).join(', ');
}

/** A fraction as basis points (`0.0005` is `5 bp`). */
export function formatBasisPoints(fraction: number): string {
  return `${formatNumber(fraction * 10_000)} bp`;
}

/** A search's filter values from the form's text: a minimum badge (none for the weakest) and whole forward days (none when empty or not a number). */
export function evidenceFilters(minBadge: string, minForwardDays: string): { minBadge?: EvidenceBadgeName; minForwardDays?: number } {
  const out: { minBadge?: EvidenceBadgeName; minForwardDays?: number } = {};
  if (minBadge === 'emerging' || minBadge === 'established') out.minBadge = minBadge;
  const days = Number(minForwardDays.trim());
  if (minForwardDays.trim() !== '' && Number.isInteger(days) && days > 0) out.minForwardDays = days;
  return out;
}
