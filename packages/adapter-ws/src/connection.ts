import WebSocket, { type RawData } from 'ws';
import { describeIssues, WS_CLIENT_MESSAGE_TYPES, WS_CLOSE_CODES, WsClientMessage, type Channel, type ErrorCode } from '@stratbox/core';
import type { HubMember } from './channel-hub.js';
import { errorMessage, thrownErrorMessage } from './server-messages.js';
import type { WsContext } from './ws-context.js';

const PENDING = 0;
const AUTHENTICATING = 1;
const AUTHENTICATED = 2;
/** Closed by the server, close frame under way: messages are ignored, cleanup waits for 'close'. */
const CLOSING = 3;
const CLOSED = 4;
type State = typeof PENDING | typeof AUTHENTICATING | typeof AUTHENTICATED | typeof CLOSING | typeof CLOSED;

type ClientMessage = WsClientMessage;
const TEXT = { binary: false } as const;

/** The client ref of a message that failed validation, if it carried a usable one. */
function refOf(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' && id.length >= 1 && id.length <= 64 ? id : null;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Why a message failed the contract, in one line a developer can act on. */
function describeInvalid(raw: unknown, error: Parameters<typeof describeIssues>[0]): { message: string; details: unknown } {
  const details = describeIssues(error, '');
  const type = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as { type?: unknown }).type : undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { message: 'Every message is a JSON object with a "type"', details };
  }
  if (!(WS_CLIENT_MESSAGE_TYPES as readonly unknown[]).includes(type)) {
    const shown = typeof type === 'string' ? `"${type.slice(0, 40)}"` : String(type === undefined ? 'missing' : typeof type);
    return { message: `Unknown message type ${shown}; expected ${WS_CLIENT_MESSAGE_TYPES.join(', ')}`, details };
  }
  const first = details[0];
  return { message: first ? `Invalid ${first.path || 'message'}: ${first.message}` : 'Invalid message', details };
}

/**
 * One socket: authentication, the client's messages (checked against the contract, rate
 * limited, handled one at a time in arrival order), its subscriptions, and every write to it
 * with the slow-consumer policy. Fields are few on purpose: an idle socket should cost little.
 */
export class Connection implements HubMember {
  userId: string | null = null;
  /** Cleared by each heartbeat, set by a pong or any message. */
  alive = true;
  private state: State = PENDING;
  private subscriptions: Set<string> | null = null;
  private queue: ClientMessage[] | null = null;
  private busy = false;
  private tokens: number;
  private refilledAt: number;
  private authTimer: NodeJS.Timeout | null = null;
  private counted = false;

  constructor(
    private readonly ctx: WsContext,
    readonly ws: WebSocket,
  ) {
    this.tokens = ctx.options.messageRate.burst;
    this.refilledAt = Date.now();
  }

  /** Starts the socket's life: authenticated by the upgrade's credentials, refused, or waiting for `auth`. */
  start(upgrade: { userId: string } | 'rejected' | null): void {
    if (upgrade === 'rejected') return this.refuse('Invalid credentials in the Authorization header');
    if (upgrade) return this.admit(upgrade.userId);
    this.authTimer = setTimeout(() => {
      this.authTimer = null;
      if (this.state !== PENDING && this.state !== AUTHENTICATING) return;
      this.send(errorMessage(null, 'UNAUTHENTICATED', `No auth message within ${this.ctx.options.authTimeoutMs} ms`));
      this.close(WS_CLOSE_CODES.AUTH_TIMEOUT, 'Authentication timeout');
    }, this.ctx.options.authTimeoutMs);
    this.authTimer.unref?.();
  }

  onMessage(data: RawData, isBinary: boolean): void {
    if (this.state >= CLOSING) return;
    this.alive = true;
    const unauthenticated = this.state === PENDING;
    // every message counts against the rate, garbage included (the first one decides anyway)
    if (!unauthenticated && !this.takeToken()) return this.rateLimited(data, isBinary);
    if (isBinary) {
      if (unauthenticated) return this.refuse('Authenticate first with a JSON text message {"type":"auth","token":"..."}');
      return this.sendError(null, 'VALIDATION_FAILED', 'Binary frames are not supported; send JSON text messages');
    }
    const buffer = toBuffer(data);
    const limit = this.ctx.options.maxMessageBytes;
    if (buffer.length > limit) {
      if (unauthenticated) return this.refuse(`Authenticate first; messages are at most ${limit} bytes`);
      return this.sendError(null, 'PAYLOAD_TOO_LARGE', `A message is at most ${limit} bytes; this one has ${buffer.length}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(buffer.toString('utf8'));
    } catch {
      if (unauthenticated) return this.refuse('Authenticate first with a JSON message {"type":"auth","token":"..."}');
      return this.sendError(null, 'VALIDATION_FAILED', 'Malformed JSON: every message is a JSON object with a "type"');
    }
    const parsed = WsClientMessage.safeParse(raw);
    if (!parsed.success) {
      if (unauthenticated) return this.refuse('Authenticate first with {"type":"auth","token":"..."}');
      const { message, details } = describeInvalid(raw, parsed.error);
      return this.sendError(refOf(raw), 'VALIDATION_FAILED', message, details);
    }
    const msg = parsed.data;
    if (unauthenticated) {
      if (msg.type !== 'auth') return this.refuse('Authenticate first with {"type":"auth","token":"..."}');
      this.state = AUTHENTICATING;
      this.takeToken();
    }
    (this.queue ??= []).push(msg);
    if (!this.busy) void this.drain();
  }

  /** Called by the heartbeat: drops a socket that did not answer the previous ping, else pings it. */
  heartbeat(): void {
    if (this.state === CLOSED || this.ws.readyState !== WebSocket.OPEN) return;
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
  }

  /** The socket is gone: leave every channel, release the user's socket slot. */
  onClose(): void {
    if (this.state === CLOSED) return;
    this.state = CLOSED;
    if (this.authTimer) clearTimeout(this.authTimer);
    this.authTimer = null;
    this.queue = null;
    if (this.subscriptions) for (const channel of this.subscriptions) this.ctx.hub.leave(channel, this);
    this.subscriptions = null;
    if (this.counted && this.userId) {
      const left = (this.ctx.userSockets.get(this.userId) ?? 1) - 1;
      if (left > 0) this.ctx.userSockets.set(this.userId, left);
      else this.ctx.userSockets.delete(this.userId);
      this.counted = false;
    }
    this.ctx.connections.delete(this);
  }

  /** Closes the socket with a code (see WS_CLOSE_CODES); the close frame follows anything already buffered. */
  close(code: number, reason: string): void {
    if (this.state < CLOSING) this.state = CLOSING;
    this.queue = null;
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code, reason);
  }

  get isAuthenticated(): boolean {
    return this.state === AUTHENTICATED;
  }

  /**
   * Writes an event. Past `dropProgressAboveBytes` of unsent data a droppable (intermediate
   * progress) event is skipped; past `maxBufferedBytes` the socket is closed with 4509 rather
   * than buffer more, so a slow reader never grows the server's memory without bound.
   */
  sendFrame(frame: Buffer | string, droppable: boolean): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const buffered = this.ws.bufferedAmount;
    const { maxBufferedBytes, dropProgressAboveBytes } = this.ctx.options;
    if (buffered >= maxBufferedBytes) {
      this.ctx.counters.slowConsumerCloses++;
      this.close(WS_CLOSE_CODES.SLOW_CONSUMER, 'Slow consumer: too many unsent bytes');
      return;
    }
    if (droppable && buffered >= dropProgressAboveBytes) {
      this.ctx.counters.droppedEvents++;
      return;
    }
    this.ws.send(frame, TEXT);
  }

  private send(json: string): void {
    this.sendFrame(json, false);
  }

  private sendError(id: string | null, code: ErrorCode, message: string, details?: unknown): void {
    this.send(errorMessage(id, code, message, details));
  }

  /** Refuses an unauthenticated socket: an UNAUTHENTICATED error, then close 4401. */
  private refuse(message: string): void {
    if (this.state >= CLOSING) return;
    this.send(errorMessage(null, 'UNAUTHENTICATED', message));
    this.close(WS_CLOSE_CODES.UNAUTHENTICATED, 'Unauthenticated');
  }

  private admit(userId: string): void {
    if (this.authTimer) clearTimeout(this.authTimer);
    this.authTimer = null;
    const { maxSocketsPerUser } = this.ctx.options;
    const open = this.ctx.userSockets.get(userId) ?? 0;
    if (open >= maxSocketsPerUser) {
      this.ctx.counters.rateLimited++;
      this.send(errorMessage(null, 'RATE_LIMITED', `At most ${maxSocketsPerUser} open sockets per user; close one first`));
      this.close(WS_CLOSE_CODES.TOO_MANY_SOCKETS, 'Too many sockets for this user');
      return;
    }
    this.ctx.userSockets.set(userId, open + 1);
    this.counted = true;
    this.userId = userId;
    this.state = AUTHENTICATED;
    this.send(JSON.stringify({ type: 'authenticated', userId }));
  }

  /** Answers a message over the rate with RATE_LIMITED (with its client ref, if it is readable JSON) and drops it. */
  private rateLimited(data: RawData, isBinary: boolean): void {
    this.ctx.counters.rateLimited++;
    let ref: string | null = null;
    if (!isBinary) {
      const buffer = toBuffer(data);
      if (buffer.length <= this.ctx.options.maxMessageBytes) {
        try {
          ref = refOf(JSON.parse(buffer.toString('utf8')));
        } catch {
          // not JSON: no ref to echo
        }
      }
    }
    const { burst, perSecond } = this.ctx.options.messageRate;
    this.sendError(ref, 'RATE_LIMITED', `Too many messages: at most ${perSecond} per second, in bursts of ${burst}`);
  }

  private takeToken(): boolean {
    const { burst, perSecond } = this.ctx.options.messageRate;
    const now = Date.now();
    this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) * perSecond) / 1000);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Handles queued messages one at a time, so subscribe/unsubscribe of one socket never interleave. */
  private async drain(): Promise<void> {
    this.busy = true;
    try {
      for (let msg = this.queue?.shift(); msg; msg = this.queue?.shift()) {
        if (this.state >= CLOSING) break;
        try {
          await this.handle(msg);
        } catch (error) {
          if (this.state < CLOSING) {
            this.send(thrownErrorMessage(msg.type === 'auth' ? null : msg.id, error, this.ctx.logger, { messageType: msg.type, userId: this.userId }));
          }
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async handle(msg: ClientMessage): Promise<void> {
    if (msg.type === 'auth') {
      if (this.state !== AUTHENTICATING) return this.sendError(null, 'VALIDATION_FAILED', 'Already authenticated');
      let caller: { userId: string } | null;
      try {
        caller = await this.ctx.authenticate({ headers: { authorization: `Bearer ${msg.token}` } });
      } catch (error) {
        if (this.state >= CLOSING) return;
        this.send(thrownErrorMessage(null, error, this.ctx.logger, { messageType: 'auth' }));
        this.close(WS_CLOSE_CODES.INTERNAL_ERROR, 'Authentication failed with an internal error');
        return;
      }
      if (this.state >= CLOSING) return;
      if (!caller) return this.refuse('Invalid API key');
      return this.admit(caller.userId);
    }
    if (this.state !== AUTHENTICATED) return;
    if (msg.type === 'subscribe') return this.subscribe(msg.channel as Channel, msg.id);
    if (this.subscriptions?.delete(msg.channel)) this.ctx.hub.leave(msg.channel, this);
    this.send(JSON.stringify({ type: 'unsubscribed', channel: msg.channel, id: msg.id }));
  }

  private async subscribe(channel: Channel, ref: string): Promise<void> {
    const subscriptions = (this.subscriptions ??= new Set());
    if (subscriptions.has(channel)) {
      this.send(JSON.stringify({ type: 'subscribed', channel, id: ref }));
      return;
    }
    const max = this.ctx.options.maxSubscriptionsPerSocket;
    if (subscriptions.size >= max) {
      this.ctx.counters.rateLimited++;
      return this.sendError(ref, 'RATE_LIMITED', `At most ${max} subscriptions per socket; unsubscribe from one first`);
    }
    subscriptions.add(channel);
    let snapshot: unknown;
    try {
      await this.ctx.hub.join(channel, this);
      if (this.state >= CLOSING) return;
      snapshot = (await this.ctx.channels.authorize(this.userId!, channel)).snapshot;
    } catch (error) {
      if (this.state >= CLOSING) return;
      subscriptions.delete(channel);
      this.ctx.hub.leave(channel, this);
      this.send(thrownErrorMessage(ref, error, this.ctx.logger, { channel, userId: this.userId }));
      return;
    }
    if (this.state >= CLOSING) return;
    this.send(JSON.stringify({ type: 'subscribed', channel, id: ref }));
    this.ctx.hub.activate(channel, this, snapshot);
  }
}
