import type { IndicatorSpec } from './indicator-kinds.js';
import { createAdx } from './kinds/adx.js';
import { createAtr } from './kinds/atr.js';
import { createBollinger } from './kinds/bollinger.js';
import { createCci } from './kinds/cci.js';
import { createDonchian } from './kinds/donchian.js';
import { createEma } from './kinds/ema.js';
import { createHighest, createLowest } from './kinds/highest-lowest.js';
import { createKeltner } from './kinds/keltner.js';
import { createMacd } from './kinds/macd.js';
import { createObv } from './kinds/obv.js';
import { createPsar } from './kinds/psar.js';
import { createRoc } from './kinds/roc.js';
import { createRsi } from './kinds/rsi.js';
import { createSma } from './kinds/sma.js';
import { createStddev } from './kinds/stddev.js';
import { createStochastic } from './kinds/stochastic.js';
import { createSupertrend } from './kinds/supertrend.js';
import { createVwap } from './kinds/vwap.js';
import type { StreamingIndicator } from './streaming-indicator.js';

export type { StreamingIndicator } from './streaming-indicator.js';

/**
 * Creates the streaming state of one indicator: every kind of `INDICATOR_DEFS`, with the
 * conventions stated on each `createX` (and in docs/strategy-api.md). The spec must be valid
 * (see `indicatorSpecProblem`); its args are in `INDICATOR_DEFS` order, defaults filled in.
 */
export function createIndicator(spec: IndicatorSpec): StreamingIndicator {
  const [a, b, c] = spec.args as number[];
  switch (spec.kind) {
    case 'sma':
      return createSma(a!);
    case 'ema':
      return createEma(a!);
    case 'rsi':
      return createRsi(a!);
    case 'atr':
      return createAtr(a!);
    case 'bollinger':
      return createBollinger(a!, b!);
    case 'macd':
      return createMacd(a!, b!, c!);
    case 'stochastic':
      return createStochastic(a!, b!, c!);
    case 'adx':
      return createAdx(a!);
    case 'cci':
      return createCci(a!);
    case 'vwap':
      return createVwap();
    case 'obv':
      return createObv();
    case 'donchian':
      return createDonchian(a!);
    case 'highest':
      return createHighest(a!);
    case 'lowest':
      return createLowest(a!);
    case 'stddev':
      return createStddev(a!);
    case 'roc':
      return createRoc(a!);
    case 'keltner':
      return createKeltner(a!, b!, c!);
    case 'psar':
      return createPsar(a!, b!);
    case 'supertrend':
      return createSupertrend(a!, b!);
    default:
      throw new TypeError(`unknown indicator ${JSON.stringify((spec as { kind: unknown }).kind)}`);
  }
}
