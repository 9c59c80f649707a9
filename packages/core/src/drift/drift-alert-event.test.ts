import { describe, expect, it } from 'vitest';
import type { DriftReport } from '@stratbox/contract';
import { createMemoryStore } from '../testing/memory-store.js';
import { recordDriftAlert } from './drift-alert-event.js';

/* The `deployment.drift` event: written for a breach, once per window end day and set of metrics. */

const deployment = { id: 'dep_drift1', userId: 'usr_alice' };

function report(to: string, breached: DriftReport['alerts']['breached']): DriftReport {
  return {
    window: { from: '2026-03-01T00:00:00.000Z', to },
    alerts: { thresholds: { minCorrelation: 0.8, maxDtw: 0.2, maxSlippageRatio: 5, parityMiss: true }, breached },
  } as DriftReport;
}

describe('recordDriftAlert', () => {
  it('tells a breach once per window end day and set of metrics, and nothing without a breach', async () => {
    const store = createMemoryStore();
    const at = '2026-03-02T10:00:00.000Z';
    const parity = { metric: 'parity' as const, value: 0.5, limit: 1 };
    const dtw = { metric: 'dtw' as const, value: 0.3, limit: 0.2 };
    expect(await recordDriftAlert(store, deployment, report('2026-03-02T10:00:00.000Z', []), at)).toBeNull();
    const first = await recordDriftAlert(store, deployment, report('2026-03-02T10:00:00.000Z', [parity]), at);
    expect(first).toMatch(/^evt_/);
    // the same breach later that day (a new candle, other figures): told already
    expect(await recordDriftAlert(store, deployment, report('2026-03-02T11:00:00.000Z', [{ ...parity, value: 0.4 }]), at)).toBeNull();
    // another metric breached too, or the next day: told again
    expect(await recordDriftAlert(store, deployment, report('2026-03-02T12:00:00.000Z', [dtw, parity]), at)).toMatch(/^evt_/);
    expect(await recordDriftAlert(store, deployment, report('2026-03-03T00:01:00.000Z', [parity]), at)).toMatch(/^evt_/);

    const events = await store.notificationEvents.list(deployment.userId, { limit: 10 });
    expect(events).toHaveLength(3);
    const told = events.find((e) => e.id === first)!;
    expect(told).toMatchObject({ type: 'deployment.drift', severity: 'warning', subjectKind: 'deployment', subjectId: deployment.id });
    expect(told.data).toEqual({
      deploymentId: deployment.id,
      window: { from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T10:00:00.000Z' },
      breached: [parity],
    });
    expect(told.summary).toBe('Deployment dep_drift1 drifted from its backtest: parity 0.5 (limit 1)');
  });
});
