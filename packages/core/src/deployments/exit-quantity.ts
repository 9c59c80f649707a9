import type { ExchangeMarket } from '../ports/exchange-gateway.js';

/** What an exit may sell: the whole position if the account holds it, rounded down to the market's step; dust is what cannot be sold. */
export interface ExitQuantity {
  /** The quantity to send (0: nothing can be sent). */
  quantity: number;
  /** Left behind: the part below the amount step, or all of it when it is below the minimum quantity or notional. */
  dust: number;
  /** Why nothing can be sent, when `quantity` is 0. */
  reason: string | null;
}

const decimalsOf = (step: number) => Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));

/**
 * The exit amount of a position: `min(position, free)` (a fee taken in the base asset leaves
 * less than the fills say on a spot account; `free` null means the position is what may be
 * sold, as on a derivatives account), rounded DOWN to the market's amount step. Below the
 * market's minimum quantity or minimum notional (at `price`) nothing is sent: the exchange
 * would refuse it, and again at every retry. That remainder is dust, for the caller to record.
 */
export function exitQuantity(
  position: number,
  free: number | null,
  market: Pick<ExchangeMarket, 'amountStep' | 'minQuantity' | 'minCost'> | null,
  price: number | null,
): ExitQuantity {
  const held = Math.max(0, free === null ? position : Math.min(position, free));
  const step = market?.amountStep ?? null;
  const rounded = step && step > 0 ? Number((Math.floor(held / step + 1e-9) * step).toFixed(decimalsOf(step))) : held;
  const dust = Number((position - rounded).toFixed(12));
  if (!(rounded > 0)) return { quantity: 0, dust: position, reason: `${position} is below the amount step ${step}` };
  if (market?.minQuantity && rounded < market.minQuantity) {
    return { quantity: 0, dust: position, reason: `${rounded} is below the minimum quantity ${market.minQuantity}` };
  }
  if (market?.minCost && price !== null && rounded * price < market.minCost) {
    return { quantity: 0, dust: position, reason: `${rounded} x ${price} is below the minimum notional ${market.minCost}` };
  }
  return { quantity: rounded, dust, reason: null };
}
