export {
  DEFAULT_VERIFICATION_SETTINGS,
  resolveVerificationSettings,
  type VerificationSettings,
  type VerificationSettingsInput,
} from './verification-settings.js';
export { badgeFor } from './evidence-badge.js';
export { newVerificationRecord, defaultParams, type NewVerificationRecordDeps, type NewVerificationRecordInput } from './start-record.js';
export {
  runPlatformBacktest,
  runRecordBacktest,
  backtestSegment,
  backtestWindow,
  RECORD_EQUITY_POINTS,
  type PlatformBacktestRun,
  type VerificationDeps,
} from './platform-backtest.js';
export {
  advanceForwardRecord,
  loadForwardMarket,
  forwardNeed,
  type AdvanceOptions,
  type ForwardAdvance,
  type ForwardMarket,
  type ForwardMarketRequest,
} from './forward-record.js';
export { createVerificationLoop, type VerificationLoop, type VerificationLoopDeps, type VerificationRound } from './verification-loop.js';
export { summaryOf, toVerificationRecordView } from './record-views.js';
export { decodePoints } from './equity-points.js';
export { drawdownRecoveryDays, dsrOf, psrOf } from './record-metrics.js';
