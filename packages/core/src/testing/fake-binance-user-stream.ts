import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FakeAnswer } from './fake-binance-faults.js';
import type { FakeBinance, FakeOrder } from './fake-binance-usdm.js';
import { listenLocally } from './listen-locally.js';

/*
 * The user-data stream of the Binance USDT-M double: `POST /fapi/v1/listenKey` (answered by the
 * double through `answerListenKey`, with the API key and no signature, as Binance does) and a
 * WebSocket server at `wsUrl` that ccxt's pro binanceusdm connects to as
 * `<wsUrl minus /ws>/private/ws?listenKey=<key>` (set `exchange.urls.api.ws.future = wsUrl`).
 * It sends `ORDER_TRADE_UPDATE` events when the test says (`emit`), and can drop every
 * connection and refuse new ones (`drop` / `resume`). A minimal RFC 6455 server (text frames
 * out; ping, pong and close in), so the double needs no WebSocket package.
 */

export interface FakeUserStream {
  /** `ws://127.0.0.1:<port>/ws`: put it at `urls.api.ws.future` of the ccxt instance. */
  wsUrl: string;
  /** Connections open now. */
  connections(): number;
  /** Connections ever accepted. */
  accepted(): number;
  /** Sends an ORDER_TRADE_UPDATE of `order` as it is now, `lastQty` being the quantity of this execution (0 for none). */
  emit(order: FakeOrder, execution?: { type?: 'NEW' | 'TRADE' | 'CANCELED'; lastQty?: number; tradeId?: number }): void;
  /** Closes every connection and refuses new ones until `resume`. */
  drop(): void;
  resume(): void;
  close(): Promise<void>;
}

const streams = new WeakMap<FakeBinance, { key: string }>();

/** The double's answer to the listen-key routes, or null for any other request. */
export function answerListenKey(fake: FakeBinance, method: string, path: string): FakeAnswer | null {
  if (path !== '/fapi/v1/listenKey') return null;
  const stream = streams.get(fake);
  if (!stream) return { status: 400, body: { code: -1000, msg: 'No user data stream on this server.' } };
  return { status: 200, body: method === 'DELETE' || method === 'PUT' ? {} : { listenKey: stream.key } };
}

function frame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n]) : n < 65_536 ? Buffer.from([0x81, 126, n >> 8, n & 255]) : Buffer.alloc(10);
  if (n >= 65_536) {
    head[0] = 0x81;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Control frames of a client (masked): answers pings, closes on close. */
function onClientData(socket: Socket, data: Buffer) {
  let at = 0;
  while (at + 2 <= data.length) {
    const opcode = data[at]! & 0x0f;
    let len = data[at + 1]! & 0x7f;
    let offset = at + 2;
    if (len === 126) {
      len = data.readUInt16BE(offset);
      offset += 2;
    } else if (len === 127) {
      len = Number(data.readBigUInt64BE(offset));
      offset += 8;
    }
    const mask = data.subarray(offset, offset + 4);
    offset += 4;
    const payload = Buffer.from(data.subarray(offset, offset + len));
    for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i % 4]!;
    if (opcode === 0x9) socket.write(Buffer.concat([Buffer.from([0x8a, payload.length]), payload]));
    if (opcode === 0x8) socket.end(Buffer.from([0x88, 0]));
    at = offset + len;
  }
}

/** Starts the user-data stream of `fake` on a free port of 127.0.0.1. */
export async function startFakeBinanceUserStream(fake: FakeBinance): Promise<FakeUserStream> {
  const key = randomBytes(24).toString('hex');
  streams.set(fake, { key });
  const sockets = new Set<Socket>();
  let accepted = 0;
  let refusing = false;
  let nextTradeId = 1;
  const server: Server = createServer((_req, res) => {
    res.writeHead(404);
    res.end();
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const wsKey = req.headers['sec-websocket-key'];
    if (refusing || url.pathname !== '/private/ws' || url.searchParams.get('listenKey') !== key || typeof wsKey !== 'string') {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const accept = createHash('sha1').update(`${wsKey}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    accepted++;
    sockets.add(socket);
    socket.on('data', (data: Buffer) => onClientData(socket, data));
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => sockets.delete(socket));
  });
  const local = await listenLocally(server);
  const wsUrl = `${local.url.replace(/^http/, 'ws')}/ws`;

  return {
    wsUrl,
    connections: () => sockets.size,
    accepted: () => accepted,
    emit(order, execution = {}) {
      const now = Date.now();
      const lastQty = execution.lastQty ?? 0;
      const event = {
        e: 'ORDER_TRADE_UPDATE',
        E: now,
        T: now,
        o: {
          s: order.symbol,
          c: order.clientOrderId,
          S: order.side,
          o: order.type,
          f: 'GTC',
          q: order.origQty,
          p: order.price,
          ap: order.avgPrice,
          sp: order.stopPrice,
          x: execution.type ?? (lastQty > 0 ? 'TRADE' : order.status === 'CANCELED' ? 'CANCELED' : 'NEW'),
          X: order.status,
          i: order.orderId,
          l: String(lastQty),
          z: order.executedQty,
          L: lastQty > 0 ? order.avgPrice : '0',
          N: 'USDT',
          n: '0',
          T: now,
          t: lastQty > 0 ? (execution.tradeId ?? nextTradeId++) : 0,
          b: '0',
          a: '0',
          m: false,
          R: order.reduceOnly,
          wt: 'CONTRACT_PRICE',
          ot: order.type,
          ps: 'BOTH',
          cp: false,
          rp: '0',
          pP: false,
          si: 0,
          ss: 0,
        },
      };
      const bytes = frame(JSON.stringify(event));
      for (const s of sockets) s.write(bytes);
    },
    drop() {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    resume() {
      refusing = false;
    },
    async close() {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
      streams.delete(fake);
      await local.close();
    },
  };
}
