import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from '@stratbox/core';

/** The socket of a `clientError`, with the response Node may have started on it. */
type ClientSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/** The answer for each parser error, as Node's own default, but with a Stratbox error body. */
function answerFor(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'Request line and headers are too large (URL, query string and headers together; at most 16 KB by default)' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The request was not received in time' };
    default:
      return { status: 400, message: 'Malformed HTTP request' };
  }
}

/**
 * Answers a request Node's HTTP parser refused before any handler ran (a query string or headers
 * over `maxHeaderSize`, a malformed request line, a request too slow to arrive) with a complete
 * HTTP response whose body is the documented error body,
 * `{ "error": { "code": "VALIDATION_FAILED", "message": "..." } }`, instead of Node's bare
 * status line: 431 for oversize headers, 408 for a timeout, 400 otherwise. Then closes the
 * connection. Use it on the server that serves the router:
 *
 * ```ts
 * const server = http.createServer(app);
 * server.on('clientError', handleClientError);
 * ```
 */
export function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
  const open = socket as ClientSocket;
  // a reset connection, or one whose response already started, cannot be answered
  if (error.code === 'ECONNRESET' || !open.writable || open._httpMessage?.headersSent) {
    open.destroy();
    return;
  }
  const { status, message } = answerFor(error.code);
  const body: ErrorBody = { error: { code: 'VALIDATION_FAILED', message } };
  const payload = JSON.stringify(body);
  open.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(payload)}\r\n` +
      'Connection: close\r\n' +
      '\r\n' +
      payload,
  );
}
