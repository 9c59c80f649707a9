import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithCli, runCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';
import { signatureMatches, startWebhookReceiver, type WebhookReceiver } from './harness/webhook-receiver.js';

/*
 * `stratbox notify test <channel>`: the real bin in a child process, on the DATA_DIR of a running
 * example server (which made the master key that seals the channel's target), sending to a local
 * receiver admitted by STRATBOX_NOTIFY_ALLOW_HOSTS.
 */

describe('stratbox notify test', () => {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir, STRATBOX_NOTIFY_ALLOW_HOSTS: '127.0.0.1' };
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let alice: { userId: string; apiKey: string };
  let bob: { userId: string; apiKey: string };
  let client: StratboxClient;
  let channelId: string;
  let secret: string;

  beforeAll(async () => {
    alice = await createUserWithCli('alice', env); // also migrates the schema
    bob = await createUserWithCli('bob', env);
    server = await startServerProcess(env);
    receiver = await startWebhookReceiver();
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: alice.apiKey });
    const channel = await client.notifications.create({ body: { kind: 'webhook', label: 'Local hook', url: receiver.url } });
    channelId = channel.id;
    secret = channel.signingSecret!;
  }, 120_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await receiver?.close();
    data.remove();
  });

  it('sends the test to the receiver, signed, and prints the delivery as JSON; exit 0', async () => {
    const result = await runCli(['notify', 'test', channelId, '--user', alice.userId, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const delivery = JSON.parse(result.stdout);
    expect(delivery).toMatchObject({ channelId, eventType: 'notification.test', status: 'delivered', attempts: 1, lastStatusCode: 200, lastError: null });
    const request = receiver.requests.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.headers['idempotency-key']).toBe(delivery.eventId);
    expect(signatureMatches(request, secret)).toBe(true);
    expect(JSON.parse(request.body)).toMatchObject({ id: delivery.eventId, type: 'notification.test', userId: alice.userId, data: { channelId } });
    // the same log the HTTP route reads
    const log = await client.notifications.deliveries({ params: { id: channelId } });
    expect(log.deliveries.map((d) => d.id)).toContain(delivery.id);
  }, 60_000);

  it('takes the owner by API key too, and prints a table', async () => {
    const result = await runCli(['notify', 'test', channelId], { ...env, STRATBOX_API_KEY: alice.apiKey });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^status\s+delivered$/m);
    expect(result.stdout).toMatch(/^attempts\s+1$/m);
    expect(result.stdout).toMatch(/^http status\s+200$/m);
  }, 60_000);

  it('prints the failure and exits 1 when the receiver answers 500', async () => {
    receiver.answer(500);
    try {
      const result = await runCli(['notify', 'test', channelId, '--user', alice.userId], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^http status\s+500$/m);
      expect(result.stdout).not.toMatch(/^status\s+delivered$/m);
      expect(result.stdout).toMatch(/^error\s+\S/m);
    } finally {
      receiver.answer(200);
    }
  }, 60_000);

  it("refuses another user's channel as not found, and a call that names no owner", async () => {
    const sent = receiver.requests.length;
    const other = await runCli(['notify', 'test', channelId, '--user', bob.userId], env);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/not found/i);
    const nobody = await runCli(['notify', 'test', channelId], { ...env, STRATBOX_API_KEY: '' });
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('--user');
    const badKey = await runCli(['notify', 'test', channelId, '--api-key', 'sbx_nope'], env);
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/API key was not accepted/);
    expect(receiver.requests.length).toBe(sent);
  }, 60_000);

  it('has --help naming how the owner is given', async () => {
    const help = await runCli(['notify', 'test', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: stratbox notify test');
    expect(help.stdout).toContain('--user <id>');
    expect(help.stdout).toContain('--api-key <key>');
  }, 60_000);
});
