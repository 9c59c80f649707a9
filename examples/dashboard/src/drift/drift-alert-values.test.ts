import { describe, expect, it } from 'vitest';
import { toAlertValues, toThresholds } from './drift-alert-values.js';

describe('drift alert form values', () => {
  it('shows a threshold that is off as an empty field, and saves an empty field as off', () => {
    const values = toAlertValues({ minCorrelation: 0.8, maxDtw: null, maxSlippageRatio: 5, parityMiss: true });
    expect(values).toEqual({ minCorrelation: '0.8', maxDtw: '', maxSlippageRatio: '5', parityMiss: true });
    expect(toThresholds({ ...values, minCorrelation: ' ', maxDtw: '0.25', parityMiss: false })).toEqual({
      minCorrelation: null,
      maxDtw: 0.25,
      maxSlippageRatio: 5,
      parityMiss: false,
    });
  });
});
