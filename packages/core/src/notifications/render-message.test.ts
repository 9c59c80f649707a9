import { describe, expect, it } from 'vitest';
import { DISCORD_MAX_CHARS, renderMessage, TELEGRAM_MAX_CHARS, truncateText } from './render-message.js';
import { completedEvent, fillDigest } from './test-fixtures.js';

describe('renderMessage', () => {
  it('shows the severity, summary, type, time and record of an event', () => {
    expect(renderMessage(completedEvent)).toBe(
      [
        'ℹ️ INFO: Backtest bt_4fJq0cWzYb3kR9tLmN2pXa completed: +4.20 %',
        'Event: backtest.completed',
        'Time: 2026-03-01T11:59:58.000Z',
        'Subject: backtest bt_4fJq0cWzYb3kR9tLmN2pXa',
      ].join('\n'),
    );
  });

  it('shows a digest with its count and minute', () => {
    const text = renderMessage({ ...fillDigest, severity: 'critical' });
    expect(text).toMatch(/^🚨 CRITICAL: 995 more fills/);
    expect(text).toContain('Digest: 995 × deployment.order.filled from 2026-03-01 12:00 UTC to 2026-03-01 12:01 UTC');
  });

  it('never goes past the platform limit, and never splits a character', () => {
    const long = { ...completedEvent, summary: `${'😀'.repeat(250)}` };
    for (const max of [DISCORD_MAX_CHARS, TELEGRAM_MAX_CHARS, 100, 101]) {
      const text = renderMessage(long, max);
      expect(text.length).toBeLessThanOrEqual(max);
      expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
    expect(truncateText('abcdef', 4)).toBe('abc…');
  });
});
