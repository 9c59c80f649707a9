import type { DriftThresholds } from '@stratbox/client';

/** The alert thresholds as the form holds them: numbers as typed, an empty field for a threshold that is off. */
export interface DriftAlertValues {
  minCorrelation: string;
  maxDtw: string;
  maxSlippageRatio: string;
  parityMiss: boolean;
}

const text = (value: number | null) => (value === null ? '' : String(value));
const number = (value: string) => (value.trim() === '' ? null : Number(value));

/** The form's values of the deployment's thresholds. */
export function toAlertValues(thresholds: DriftThresholds): DriftAlertValues {
  return {
    minCorrelation: text(thresholds.minCorrelation),
    maxDtw: text(thresholds.maxDtw),
    maxSlippageRatio: text(thresholds.maxSlippageRatio),
    parityMiss: thresholds.parityMiss,
  };
}

/** The thresholds to save: every field, an empty one as null (that alert off). */
export function toThresholds(values: DriftAlertValues): DriftThresholds {
  return {
    minCorrelation: number(values.minCorrelation),
    maxDtw: number(values.maxDtw),
    maxSlippageRatio: number(values.maxSlippageRatio),
    parityMiss: values.parityMiss,
  };
}
