import { StratboxError } from '../errors/stratbox-error.js';

/** The window of a report, in epoch ms (`from` inclusive, `to` exclusive), and the key it is stored under. */
export interface DriftWindow {
  from: number;
  to: number;
  /** `from`/`to` as asked (empty: the default), so the same question finds the stored report again. */
  key: string;
}

/**
 * Resolves `?from=&to=` against the recording: by default from the first recorded candle to
 * just after the last one (its close). A window that ends before it starts is a 400.
 */
export function resolveDriftWindow(
  query: { from?: string | undefined; to?: string | undefined },
  span: { first: number; last: number },
  stepMs: number,
): DriftWindow {
  const from = query.from === undefined ? span.first : Date.parse(query.from);
  const to = query.to === undefined ? span.last + stepMs : Date.parse(query.to);
  if (!(Number.isFinite(from) && Number.isFinite(to)) || to <= from) {
    throw new StratboxError('VALIDATION_FAILED', 'The drift window must end after it starts', [{ path: 'to', message: '`to` must be after `from`' }]);
  }
  return { from, to, key: `${query.from ?? ''}|${query.to ?? ''}` };
}
