import type { BacktestProgressData, BacktestSummary } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { RunProgressCard } from '../ui/run-progress-card.js';
import { useAction } from '../ui/use-action.js';
import { useRunProgress } from '../ui/use-run-progress.js';

/** What the card shows of a backtest: its status, the share done and the bars (null until the first event). */
interface BarsProgress {
  status: BacktestSummary['status'];
  progress: number;
  processedBars: number | null;
  totalBars: number | null;
}
const view = ({ status, progress, processedBars, totalBars }: BacktestProgressData): BarsProgress => ({ status, progress, processedBars, totalBars });

/** A queued or running backtest: its live progress and a cancel button. */
export function BacktestProgress({ backtest, onFinal }: { backtest: BacktestSummary; onFinal(event: BacktestProgressData): void }) {
  const client = useClient();
  const initial: BarsProgress = { status: backtest.status, progress: backtest.progress, processedBars: null, totalBars: null };
  const progress = useRunProgress({ id: backtest.id, initial, watch: client.backtests.watch, view }, onFinal);
  const cancelling = useAction();
  const cancel = () => cancelling.run(() => client.backtests.cancel({ params: { id: backtest.id } }));

  const bars = progress.totalBars ? `${(progress.processedBars ?? 0).toLocaleString('en')} of ${progress.totalBars.toLocaleString('en')} bars` : undefined;
  return <RunProgressCard what="backtest" progress={progress} detail={bars} onCancel={cancel} cancelling={cancelling} />;
}
