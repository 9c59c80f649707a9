import { describe, expect, it } from 'vitest';
import { backtestBody, initialBacktestValues, parseSymbols } from './backtest-form-values.js';

describe('backtest form values', () => {
  it('starts with the 90 days to yesterday and the parameters’ defaults', () => {
    const values = initialBacktestValues(
      'str_1',
      { fast: { type: 'int', default: 10 }, mode: { type: 'enum', values: ['a'] } },
      Date.parse('2025-04-01T12:00:00Z'),
    );
    expect(values).toMatchObject({ startDate: '2025-01-01', endDate: '2025-03-31', params: { fast: '10', mode: '' } });
  });

  it('reads symbols separated by commas, spaces or lines', () => {
    expect(parseSymbols(' btc/usdt:usdt,ETH/USDT:USDT\nsol/usdt ')).toEqual(['BTC/USDT:USDT', 'ETH/USDT:USDT', 'SOL/USDT']);
  });

  it('sends what was typed and leaves empty fields to the API’s defaults', () => {
    const values = { ...initialBacktestValues('str_1', {}), symbols: 'BTC/USDT:USDT ETH/USDT:USDT', timeframe: '4h', leverage: '', slippage: '0.001' };
    values.params = { fast: '12', slow: '' };
    const body = backtestBody(values);
    expect(body).toMatchObject({ strategyId: 'str_1', symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'], timeframe: '4h', slippage: 0.001, params: { fast: '12' } });
    expect(body).not.toHaveProperty('leverage');
    expect(body).not.toHaveProperty('marketType');
    expect(body.fees).toEqual({ maker: 0.0002, taker: 0.0005 });
  });
});
