import type { Store, VerificationRecordPatch, VerificationRecordRow } from '../../ports/store.js';
import { summaryOf } from './record-views.js';

/**
 * Writes a record's new state with its compare-and-set, and the listing's search summary with it,
 * in one transaction: a new version superseding the record meanwhile makes the write lose, so the
 * listing never shows an old record's figures. The record after, or null when another writer won.
 */
export function saveRecord(store: Store, record: VerificationRecordRow, patch: VerificationRecordPatch): Promise<VerificationRecordRow | null> {
  return store.transaction(async (tx) => {
    const updated = await tx.verificationRecords.update(record.id, record.updatedAt, patch);
    if (updated && !updated.supersededAt) await tx.listings.setRecordSummary(updated.listingId, summaryOf(updated));
    return updated;
  });
}
