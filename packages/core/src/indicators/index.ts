export { createIndicator, type StreamingIndicator } from './create-indicator.js';
export { INDICATOR_KINDS, INDICATOR_OUTPUTS, MAX_INDICATOR_PERIOD, indicatorSpecProblem, type IndicatorKind, type IndicatorSpec } from './indicator-kinds.js';
