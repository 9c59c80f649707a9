import { describe, expect, it } from 'vitest';
import { defaultCredential, deploymentBody, initialDeploymentValues, paramDefaults } from './deployment-form-values.js';

describe('deployment form values', () => {
  it('sends the symbols upper-cased and leaves empty parameters to their defaults', () => {
    const values = { ...initialDeploymentValues('lst_1', 'cred_1'), symbols: 'btc/usdt:usdt, eth/usdt:usdt', params: { fast: '12', slow: ' ' } };
    expect(deploymentBody(values)).toEqual({
      strategyId: 'lst_1',
      credentialId: 'cred_1',
      symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'],
      params: { fast: '12' },
    });
  });

  it('fills the parameters’ defaults and picks a paper credential first', () => {
    expect(paramDefaults({ fast: { type: 'int', default: 10 }, mode: { type: 'enum', values: ['a'] } })).toEqual({ fast: '10', mode: '' });
    expect(
      defaultCredential([
        { id: 'cred_live', exchange: 'bybit' },
        { id: 'cred_paper', exchange: 'paper' },
      ]),
    ).toBe('cred_paper');
    expect(defaultCredential([{ id: 'cred_live', exchange: 'bybit' }])).toBe('');
  });
});
