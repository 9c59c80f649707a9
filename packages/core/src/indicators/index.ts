export { createIndicator } from './create-indicator.js';
export type { StreamingIndicator } from './streaming-indicator.js';
export {
  INDICATOR_DEFS,
  INDICATOR_KINDS,
  MAX_INDICATOR_PERIOD,
  indicatorOutputs,
  indicatorSpecProblem,
  type IndicatorDef,
  type IndicatorKind,
  type IndicatorParamDef,
  type IndicatorSpec,
} from './indicator-kinds.js';
