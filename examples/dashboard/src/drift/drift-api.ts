import type { DriftReport, DriftThresholds, StratboxClient } from '@stratbox/client';

/** The drift routes of one deployment, on the typed client. */
export interface DriftApi {
  /** The report over the whole recording (the platform replays it: this may take seconds). */
  report(signal: AbortSignal): Promise<DriftReport>;
  thresholds(signal: AbortSignal): Promise<DriftThresholds>;
  saveThresholds(thresholds: DriftThresholds): Promise<DriftThresholds>;
}

export function createDriftApi(client: StratboxClient, id: string): DriftApi {
  return {
    report: (signal) => client.deployments.drift({ params: { id } }, { signal }),
    thresholds: (signal) => client.deployments.getDriftAlerts({ params: { id } }, { signal }),
    saveThresholds: (thresholds) => client.deployments.setDriftAlerts({ params: { id }, body: thresholds }),
  };
}
