import type { StratboxClient } from '@stratbox/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../harness/browser.js';
import { type DashboardTab, openDashboardTab, screenshot, signIn } from '../harness/dashboard-browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { SEED_RANGE, SMA_CROSS } from '../harness/dashboard-seed.js';
import { waitFinished } from '../harness/wait-backtest.js';
import { signatureMatches, startWebhookReceiver, type WebhookReceiver } from '../harness/webhook-receiver.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * The Notifications page and the bell, in the built dashboard in headless Chromium against the
 * example app with its WebSocket endpoint (in this process, SQLite), the service admitting
 * 127.0.0.1 (the `allowHosts` of STRATBOX_NOTIFY_ALLOW_HOSTS) so a webhook channel reaches a
 * local receiver. Screenshots go to tests/.artifacts/dashboard-notifications/.
 */

const shot = (page: Page, name: string) => screenshot(page, 'dashboard-notifications', name);

describe('notifications in the dashboard', () => {
  let service: WsTestService;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let tab: DashboardTab;
  let page: Page;
  let client: StratboxClient;
  let secret: string;

  const row = () => page.locator('.channel-table tbody tr', { hasText: 'Ops hook' });
  const bell = () => page.locator('.bell-button');

  beforeAll(async () => {
    await ensureDashboardBuilt();
    service = await startWsTestService({ notifications: { allowHosts: ['127.0.0.1'] } });
    receiver = await startWebhookReceiver();
    let apiKey: string;
    ({ apiKey, client } = await service.newUser('notified'));
    browser = await launchChromium();
    tab = await openDashboardTab(browser);
    page = tab.page;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
    await signIn(page, service.baseUrl, apiKey);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await receiver?.close();
  });

  it('adds a webhook channel with picked events and shows its signing secret once, with a copy button', async () => {
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    await page.getByText('No channels yet').waitFor();

    await page.getByRole('button', { name: 'Add channel' }).click();
    await page.getByLabel('Label').fill('Ops hook');
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByLabel('All events (including those added later)').uncheck();
    // nothing picked: the form says so before asking the service
    await page.getByRole('button', { name: 'Add channel' }).click();
    await page.getByText('Pick at least one event, or all events').waitFor();
    await page.locator('.event-choices li', { hasText: 'backtest.completed' }).getByRole('checkbox').check();
    await page.locator('.event-choices li', { hasText: 'deployment.failed' }).getByRole('checkbox').check();
    await page.getByLabel('Minimum severity').selectOption('info');
    await shot(page, '1-add-channel');
    await page.getByRole('button', { name: 'Add channel' }).click();

    const notice = page.locator('.signing-secret');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('you will not see this secret again');
    secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await notice.getByRole('button', { name: 'Copy' }).click();
    await notice.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shot(page, '2-signing-secret');

    await expect.poll(() => row().count()).toBe(1);
    const cells = await row().locator('td').allTextContents();
    expect(cells.slice(0, 5)).toEqual(['Webhook', new URL(receiver.url).origin, 'active', 'deployment.failed, backtest.completed', 'info']);

    await notice.getByRole('button', { name: 'I have saved it' }).click();
    await notice.waitFor({ state: 'detached' });
    // gone for good: not on the page after a reload, nor in any answer of the API
    await page.reload();
    await row().waitFor();
    expect(await page.evaluate(() => document.body.textContent ?? '')).not.toContain(secret);
    const channel = (await client.notifications.list()).channels[0]!;
    expect(JSON.stringify(await client.notifications.get({ params: { id: channel.id } }))).not.toContain(secret);
  });

  it('sends a test: the receiver gets it signed with that secret, and the deliveries table shows it delivered', async () => {
    await row().getByRole('button', { name: 'Send test' }).click();
    const result = row().locator('.test-result');
    await result.waitFor();
    expect(await result.textContent()).toMatch(/^Test delivered after 1 attempt\(s\), HTTP 200$/);

    const request = receiver.requests.at(-1)!;
    expect(JSON.parse(request.body)).toMatchObject({ type: 'notification.test' });
    expect(signatureMatches(request, secret)).toBe(true);

    const deliveries = page.locator('.delivery-table tbody tr');
    await expect.poll(() => deliveries.count()).toBe(1);
    const cells = await deliveries.first().locator('td').allTextContents();
    expect(cells).toEqual(['notification.test', 'delivered', '1', '200', '–']);
    await shot(page, '3-test-delivered');
    // the page, its tables and the top bar with the bell fit a 1024 px laptop screen
    await page.setViewportSize({ width: 1024, height: 768 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    await shot(page, '3-laptop');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('pauses and resumes the channel', async () => {
    await row().getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => row().locator('.badge').first().textContent()).toBe('paused');
    expect((await client.notifications.list()).channels[0]!.status).toBe('paused');
    await row().getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => row().locator('.badge').first().textContent()).toBe('active');
    expect((await client.notifications.list()).channels[0]!.status).toBe('active');
  });

  it('rings the bell when a backtest completes (over the WebSocket), lists the event, and marks it read when opened', async () => {
    // whatever is there now is read; then wait until the bell listens
    await bell().click();
    await bell().click();
    await page.locator('.bell-button[data-live="true"]').waitFor();
    expect(await page.getByTestId('bell-count').count()).toBe(0);

    const strategy = await client.strategies.create({ body: { name: 'SMA cross (notified)', source: SMA_CROSS } });
    const backtest = await client.backtests.create({ body: { strategyId: strategy.id, ...SEED_RANGE } });
    expect((await waitFinished(client, backtest.id, 120_000)).status).toBe('completed');

    await expect.poll(() => page.getByTestId('bell-count').textContent()).toBe('1');
    expect(await bell().getAttribute('aria-label')).toBe('Notifications, 1 unread');
    await shot(page, '4-bell-unread');
    await bell().click();
    const item = page.locator('.bell-dropdown .event-item', { hasText: 'backtest.completed' });
    await item.waitFor();
    expect(await item.textContent()).toContain(backtest.id);
    expect(await item.getAttribute('class')).toContain('unread');
    await expect.poll(() => page.getByTestId('bell-count').count()).toBe(0);
    await shot(page, '5-bell-open');
    await page.keyboard.press('Escape');
    await page.locator('.bell-dropdown').waitFor({ state: 'detached' });

    // the channel took the event too: delivered to the receiver, in its log
    await expect.poll(() => receiver.requests.some((r) => r.body.includes('"backtest.completed"')), { timeout: 30_000 }).toBe(true);
    // read in this browser: a reload shows no count
    await page.reload();
    await page.locator('.bell-button[data-live="true"]').waitFor();
    expect(await page.getByTestId('bell-count').count()).toBe(0);
  });

  it('deletes the channel after asking', async () => {
    await row().getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete channel' }).click();
    await page.getByText('No channels yet').waitFor();
    expect((await client.notifications.list()).channels).toEqual([]);
    expect(tab.errors).toEqual([]);
  });
});
