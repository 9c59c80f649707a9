import { describe, expect, it } from 'vitest';
import { EMPTY_RISK, defaultCredential, deploymentBody, initialDeploymentValues, offersLeverage, paramDefaults, riskBody } from './deployment-form-values.js';

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

  it('sends the risk limits typed, percentages as fractions, and none when none is typed', () => {
    const base = initialDeploymentValues('str_1', 'cred_1');
    expect(deploymentBody(base)).not.toHaveProperty('risk');
    expect(riskBody({ ...EMPTY_RISK, onBreach: 'keep' })).toBeUndefined();
    expect(riskBody({ maxDrawdownPercent: '20', dailyLossPercent: ' 2.5 ', maxPositionNotional: '1000', maxOrdersPerMinute: '', onBreach: 'keep' })).toEqual({
      maxDrawdown: 0.2,
      dailyLossLimit: 0.025,
      maxPositionNotional: 1000,
      onBreach: 'keep',
    });
    expect(riskBody({ ...EMPTY_RISK, maxDrawdownPercent: '7' })).toEqual({ maxDrawdown: 0.07, onBreach: 'close' });
    expect(deploymentBody({ ...base, risk: { ...EMPTY_RISK, maxOrdersPerMinute: '30' } }).risk).toEqual({ maxOrdersPerMinute: 30, onBreach: 'close' });
    // Not a number: sent as typed, for the service to name the field.
    expect(riskBody({ ...EMPTY_RISK, maxPositionNotional: 'lots' })).toEqual({ maxPositionNotional: 'lots', onBreach: 'close' });
  });

  it('offers and sends leverage and margin mode for perpetual symbols on an exchange account only', () => {
    const values = { ...initialDeploymentValues('str_1', 'cred_1'), leverage: ' 3 ', marginMode: 'isolated' as const };
    expect(offersLeverage('BTC/USDT:USDT eth/usdt:usdt', 'binanceusdm')).toBe(true);
    expect(offersLeverage('BTC/USDT', 'binance')).toBe(false);
    expect(offersLeverage('BTC/USDT:USDT', 'paper')).toBe(false);
    expect(deploymentBody(values, 'binanceusdm')).toMatchObject({ leverage: 3, marginMode: 'isolated' });
    expect(deploymentBody(values, 'paper')).not.toHaveProperty('leverage');
    expect(deploymentBody({ ...values, symbols: 'BTC/USDT' }, 'binance')).not.toHaveProperty('marginMode');
    expect(deploymentBody(initialDeploymentValues('str_1', 'cred_1'), 'binanceusdm')).not.toHaveProperty('leverage');
    // Not a number: sent as typed, for the service to name the field.
    expect(deploymentBody({ ...values, leverage: 'lots' }, 'binanceusdm')).toMatchObject({ leverage: 'lots' });
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
