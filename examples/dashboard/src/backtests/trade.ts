import type { BacktestDetail } from '@stratbox/client';

/** One trade of a backtest, as `GET /api/backtests/:id` and `/trades` answer it. */
export type Trade = NonNullable<BacktestDetail['trades']>[number];
